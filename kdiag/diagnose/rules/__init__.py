"""The diagnosis rules, one module per stage of the run; each module's ``RULES`` in the order ``diagnose`` runs them."""
