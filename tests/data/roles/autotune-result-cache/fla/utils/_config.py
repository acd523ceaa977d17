# fla-org/flash-linear-attention@bc3b101d fla/utils/_config.py:11
import os

FLA_CACHE_RESULTS = os.getenv('FLA_CACHE_RESULTS', '1') == '1'
