# Writes dumps.txt: for each case of pyjson_test.go (same names, same
# order), json.dumps of its value with ensure_ascii on and off, tab-separated.
# The cases named *-map are Go maps, which have no order: sort_keys=True.
# Run: python3 dumps.py > dumps.txt
import json

cases = [
    ("call", {"query": "dog", "top_k": 5}),
    ("nested", {"a": [1, 2.5, None, True, False], "b": {"c": [], "d": {}}}),
    ("order", {"zeta": 1, "alpha": {"y": 2, "x": 3}}),
    ("order-map", {"zeta": 1, "alpha": {"y": 2, "x": 3}}),
    ("keys-map", {"b": 1, "a": 2, "\u00e9": 3, "Z": 4}),
    ("non-ascii", "caf\u00e9 \u6771\u4eac \U0001F600"),
    ("controls", "a\"b\\c\nd\re\tf\bg\fh\x00i\x1fj\x7fk\u2028l</script>&"),
    ("floats", [1.0, 0.5, -0.0, 1e16, 1e15, 123456789012345678.0, 0.0001, 0.00001,
                1.5e-7, 1e22, 3.14159, 2.5e-5, 100.0, 1e100, 5e-324, 1.7976931348623157e308,
                0.1 + 0.2, float("inf"), float("-inf"), float("nan")]),
    ("numbers", [json.loads(n) for n in ["5", "5.0", "-0", "1e5", "1E-7", "12345678901234567890", "0.10"]]),
    ("ints", [0, -1, 9007199254740993]),
    ("empty", [[], {}, ""]),
]
for name, v in cases:
    sort = name.endswith("-map")
    print("\t".join([name, json.dumps(v, sort_keys=sort), json.dumps(v, ensure_ascii=False, sort_keys=sort)]))
