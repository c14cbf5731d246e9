#!/usr/bin/env python3
"""Judge model outputs with BFCL's own AST checker, unchanged.

toolgrade's agreement test (cmd/toolgrade/bfcl_agree_test.go) runs this
script; it is the project's own, and BFCL's code stays where the user keeps
it. Usage:

    bfcl_agree.py BFCL_SRC OUTPUTS.jsonl VERDICTS.jsonl

BFCL_SRC is a checkout of berkeley-function-call-leaderboard (the folder that
holds bfcl_eval). Each line of OUTPUTS is {id, question, category, result,
received}: result is the model's answer as BFCL's function-calling (FC)
handlers store it, a list of {name: arguments as JSON text}, or the answer's
text when the model made no call; received is the same answer after Ollama's
encoding (5.0 becomes 5). Each line of VERDICTS is {id, valid, error_type,
error, valid_received}: BFCL's verdict of result, and of received.

Only bfcl_eval.constants.model_config is replaced (in sys.modules): the real
one imports every model handler and their SDKs. The stand-in maps one
function-calling model with underscore_to_dot=True, as BFCL's OpenAI-style
FC models are configured, so that convert_func_name expects math_factorial
for math.factorial. Everything else is imported from BFCL_SRC as it is.
"""

import json
import sys
import types

MODEL = "toolgrade-fc"  # convert_func_name looks up MODEL.replace("_", "/")


class _Config:
    """The one field of BFCL's ModelConfig the checker reads."""

    underscore_to_dot = True
    is_fc_model = True


def load_checker(src):
    """Import ast_checker from src with the model config stubbed."""
    sys.path.insert(0, src)
    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = {MODEL: _Config()}
    import bfcl_eval.constants  # the real package, so only the stub is ours

    sys.modules["bfcl_eval.constants.model_config"] = stub
    bfcl_eval.constants.model_config = stub
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval import ast_checker as module

    return module, Language


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def decode_fc(result):
    """What an FC handler's decode_ast does: each {name: JSON text} becomes
    {name: arguments}; a text (no call) raises, as it does there."""
    decoded = []
    for invoked in result:
        name = list(invoked.keys())[0]
        decoded.append({name: json.loads(invoked[name])})
    return decoded


def calls_format(decoded):
    """The shape utils.is_function_calling_format_output accepts: a list of
    one-key dicts whose value is a dict."""
    if type(decoded) != list:
        return False
    for item in decoded:
        if type(item) != dict or len(item) != 1:
            return False
        if type(list(item.values())[0]) != dict:
            return False
    return True


def irrelevance_verdict(result):
    """eval_runner's relevance runner for an irrelevance entry: valid when
    nothing decodes as a call (utils.is_empty_output)."""
    try:
        decoded = decode_fc(result)
    except Exception as e:  # noqa: BLE001 - as the runner catches it
        return True, "", "decode failed: %s" % e
    empty = (not calls_format(decoded) or len(decoded) == 0
             or (len(decoded) == 1 and len(decoded[0]) == 0))
    if empty:
        return True, "", ""
    return False, "irrelevance_error:decoder_success", "Valid syntax. Successfully decode AST when it should not."


def ast_verdict(checker, language, question, answer, category, result):
    """eval_runner's _evaluate_single_ast_entry for a Python entry."""
    try:
        decoded = decode_fc(result)
    except Exception as e:  # noqa: BLE001 - as the runner catches it
        return False, "ast_decoder:decoder_failed", "Invalid syntax. Failed to decode AST. %s" % e
    if not calls_format(decoded):
        return False, "ast_decoder:decoder_wrong_output_format", "Did not output in the specified format."
    r = checker.ast_checker(question["function"], decoded, answer["ground_truth"],
                            language.PYTHON, category, MODEL)
    if r["valid"]:
        return True, "", ""
    return False, r.get("error_type", ""), "; ".join(map(str, r.get("error", [])))


def verdict(checker, language, questions, answers, o, result):
    """BFCL's verdict of one result of output o, as the runner gives it."""
    cat, qid = o["category"], o["question"]
    try:
        if "irrelevance" in cat:
            return irrelevance_verdict(result)
        return ast_verdict(checker, language, questions[cat][qid], answers[cat][qid], cat, result)
    except Exception as e:  # noqa: BLE001 - BFCL's checker itself failed
        return False, "checker_exception", "%s: %s" % (type(e).__name__, e)


def main(src, outputs_path, verdicts_path):
    checker, language = load_checker(src)
    print("ast_checker:", checker.__file__, flush=True)
    data = src + "/bfcl_eval/data/"
    questions, answers = {}, {}
    for o in read_jsonl(outputs_path):
        cat = o["category"]
        if cat not in questions:
            questions[cat] = {q["id"]: q for q in read_jsonl(data + "BFCL_v4_%s.json" % cat)}
            if "irrelevance" not in cat:
                answers[cat] = {a["id"]: a for a in read_jsonl(data + "possible_answer/BFCL_v4_%s.json" % cat)}
    with open(verdicts_path, "w", encoding="utf-8") as out:
        for o in read_jsonl(outputs_path):
            valid, etype, err = verdict(checker, language, questions, answers, o, o["result"])
            received = verdict(checker, language, questions, answers, o, o["received"])[0]
            out.write(json.dumps({"id": o["id"], "valid": bool(valid), "error_type": etype, "error": err,
                                 "valid_received": bool(received)}) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
