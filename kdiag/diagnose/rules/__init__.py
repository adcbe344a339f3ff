"""The diagnosis rules, one module per stage of the run; each module's ``RULES`` is in catalog order."""
