"""The browser-hosted Android-like phone simulator."""
