#!/usr/bin/env python3
"""Validates Chat Completions request bodies against the OpenAPI schema.

Usage: validate_chat_request.py SCHEMA.yaml REQUEST.json [REQUEST.json ...]

Checks each body against components.schemas.CreateChatCompletionRequest of SCHEMA.yaml
(an OpenAPI document; every $ref is resolved inside it) and prints one line per file:
"OK <file>" or "INVALID <file>: <reasons>". Exit status: 0 when all are valid, 1 when
any is invalid, 2 on bad usage or an unreadable schema, 3 when pyyaml or jsonschema is
missing (pip install pyyaml jsonschema).

Two adjustments make the OpenAPI schema usable as JSON Schema:
- `nullable: true` (OpenAPI 3.0 style, which this 3.1 document still mixes in) is turned
  into an explicit "or null";
- the request schema does not forbid unknown top-level keys, so a misspelt field would
  pass silently; keys named by none of its `allOf` branches are reported here instead.
"""

import json
import sys

try:
    import yaml
    import jsonschema
except ImportError as missing:
    sys.stderr.write("validate_chat_request.py needs pyyaml and jsonschema (%s)\n" % missing)
    sys.exit(3)

REQUEST_SCHEMA = "CreateChatCompletionRequest"


def allow_null_where_nullable(node):
    if isinstance(node, list):
        return [allow_null_where_nullable(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: allow_null_where_nullable(value) for key, value in node.items()}
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


def known_top_level_keys(schemas, name):
    """Property names the request schema defines, following allOf and $ref."""
    keys = set()
    pending = [schemas[name]]
    while pending:
        schema = pending.pop()
        if "$ref" in schema:
            pending.append(schemas[schema["$ref"].rsplit("/", 1)[-1]])
        keys.update(schema.get("properties", {}).keys())
        pending.extend(schema.get("allOf", []))
    return keys


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: validate_chat_request.py SCHEMA.yaml REQUEST.json [REQUEST.json ...]\n")
        return 2
    try:
        with open(argv[1], encoding="utf-8") as schema_file:
            document = yaml.safe_load(schema_file)
        schemas = document["components"]["schemas"]
    except (OSError, KeyError, yaml.YAMLError) as problem:
        sys.stderr.write("cannot read schema %s: %s\n" % (argv[1], problem))
        return 2

    root = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/components/schemas/" + REQUEST_SCHEMA,
        "components": allow_null_where_nullable(document["components"]),
    }
    validator = jsonschema.Draft202012Validator(root)
    known = known_top_level_keys(schemas, REQUEST_SCHEMA)

    all_valid = True
    for path in argv[2:]:
        try:
            with open(path, encoding="utf-8") as request_file:
                request = json.load(request_file)
        except (OSError, ValueError) as problem:
            print("INVALID %s: unreadable JSON (%s)" % (path, problem))
            all_valid = False
            continue
        reasons = []
        for error in sorted(validator.iter_errors(request), key=lambda e: list(e.absolute_path)):
            location = "/".join(str(part) for part in error.absolute_path) or "(root)"
            reasons.append("%s: %s" % (location, error.message))
        if isinstance(request, dict):
            for key in sorted(set(request) - known):
                reasons.append("unknown top-level key '%s'" % key)
        if reasons:
            all_valid = False
            print("INVALID %s: %s" % (path, "; ".join(reasons)))
        else:
            print("OK %s" % path)
    return 0 if all_valid else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
