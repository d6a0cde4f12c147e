"""The rules as players read them: the rules page (``/rules/``, one anchor per rule id)
and the words of the engine and the bots in the reader's language (``words``)."""
