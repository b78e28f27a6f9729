"""Helpers shared by the tests: paths, builds and commands, case files, hostile inputs."""
