// Module Assistant.
