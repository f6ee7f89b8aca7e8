"""Writes of the simulator (services) and reads (selectors), called by APIs and tasks."""
