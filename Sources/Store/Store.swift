// Module Store.
