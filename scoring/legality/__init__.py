"""The legality validator's parts; :mod:`scoring.validate` is the front door (``validate``).

Modules, each importing only those listed above it:

``verdicts``       ``Reason``, ``Check`` (one level's answer), ``Verdict`` and how checks combine
``card_log``       the table's card log: ``CardLog``, ``parse_log``, the turns that draw
(``log_events``) ``model``          the CP-SAT model of drawings every level builds on (the encoding
is explained there) ``sheet_level``    level ``sheet``: an exact cover within four seasons' limits
``order_free``     level ``log``, stages A and A+: turns of one card interchangeable
``per_turn``       level ``log``, stage B: turn by turn, fallbacks and the solo sweep in order
``log_reasons``    level ``log``, illegal: the fewest cells whose change would make the sheet legal
``log_level``      level ``log``: the three stages in turn
``seasons_level``  level ``seasons``: nothing drawn earlier changed, each season explained
``replay``         an independent check of a legal witness with the game engine

Nothing is imported here, so importing one part loads only what that part needs.
"""
