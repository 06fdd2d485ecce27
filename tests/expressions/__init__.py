"""Tests of Expressions."""
