"""Stateful fake servers (real HTTP on 127.0.0.1) standing in for the providers and helper services."""
