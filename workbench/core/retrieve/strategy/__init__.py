"""A retrieval strategy as a value: ``value`` (``Strategy``), ``search_config`` (its search part),
``json_form`` (the one reader of flat and composed JSON), ``names`` (short names and chips), ``presets`` (the
named ones, ``resolve``) and ``preset_specs`` (the presets as data), ``field_checks`` (field checks shared by
JSON and the command line)."""
