"""Turns: the run and its states, admission, the runner, stops, backend generations, drain."""
