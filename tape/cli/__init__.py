"""The tape command line (see app.py); imports nothing heavy at package import."""
