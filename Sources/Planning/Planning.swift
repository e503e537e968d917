// Module Planning.
