"""What a running turn exchanges with the outside: interaction requests and queued messages."""
