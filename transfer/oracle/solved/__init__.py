"""Oracle solutions per app (modules register with @solution)."""
