"""tuong's protocol package: UCI, UCCI and xboard for the engine process, and a
client to drive any engine. `protocol` is this project's own package name."""
