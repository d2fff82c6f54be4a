"""Oracle skills, one module per app (settings, clock, contacts, phone, messages, calendar, files, calculator)."""
