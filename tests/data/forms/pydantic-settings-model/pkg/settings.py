# guidellm 0.8.1, guidellm/settings.py:60: a pydantic-settings model with a prefix and a
# nested delimiter (GUIDELLM__LOGGING__CONSOLE_LOG_LEVEL sets the nested model's field),
# and one module-level instance (:173).
from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class LoggingSettings(BaseModel):
    console_log_level: str | None = "INFO"
    disable_rich: bool = False


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GUIDELLM__", env_nested_delimiter="__")

    logging: LoggingSettings = LoggingSettings()
#   ^ GUIDELLM__LOGGING none function=Settings read=setting via=pkg.settings.Settings
#   ^ GUIDELLM__LOGGING__CONSOLE_LOG_LEVEL none default="INFO" function=Settings read=setting via=pkg.settings.Settings
#   ^ GUIDELLM__LOGGING__DISABLE_RICH off default="False" off="0" polarity=disable function=Settings read=setting via=pkg.settings.Settings
    max_concurrency: int = 1024 * 10
#   ^ GUIDELLM__MAX_CONCURRENCY none function=Settings read=setting via=pkg.settings.Settings
    use_fused_sampler: bool = True
#   ^ GUIDELLM__USE_FUSED_SAMPLER on default="True" off="0" function=Settings read=setting via=pkg.settings.Settings
    hf_token: str | None = Field(default=None, validation_alias="HF_TOKEN")
#   ^ HF_TOKEN none function=Settings read=setting via=pkg.settings.Settings


settings = Settings()
