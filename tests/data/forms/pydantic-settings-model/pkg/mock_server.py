# guidellm 0.8.1, guidellm/schemas/mock_server/config.py:18 and :133: pydantic 1's inner
# class Config gives the prefix; Field(default=...) the default.
from pydantic import Field
from pydantic_settings import BaseSettings


class MockServerConfig(BaseSettings):
    port: int = Field(default=8000, description="Port number to bind the server to")
#   ^ GUIDELLM_MOCK_SERVER_PORT none default="8000" function=MockServerConfig read=setting via=pkg.mock_server.MockServerConfig
    log_requests: bool = Field(default=False)
#   ^ GUIDELLM_MOCK_SERVER_LOG_REQUESTS off default="False" off="0" function=MockServerConfig read=setting via=pkg.mock_server.MockServerConfig

    class Config:
        env_prefix = "GUIDELLM_MOCK_SERVER_"
        case_sensitive = False
