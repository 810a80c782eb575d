"""Screens of the app; each module is imported when its screen is first opened."""
