"""The session log: its entries (events), the log itself and its readers (watches, turn streams)."""
