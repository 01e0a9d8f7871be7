"""The sales desk (`python -m tco serve`): a local web page where a salesperson builds, checks and downloads a
proposal without touching a TOML file, as a client of the library API (``tco.load``/``tco.run``/``tco.write``).

``fields`` the form (groups, units, the way between the form and a scenario), ``tomlw`` scenario data written back
as TOML, ``jobs`` the work done in worker processes (check and answer, or every file of a run), ``answer`` and
``chart`` what the page shows of a run, ``store`` the saved proposals (SQLite), ``app`` the Starlette application,
``serve`` the command. Templates, CSS and script in ``templates/`` (no front-end build step).
"""
