"""Bootstrap targets of reinforcement learning: ``r + gamma * next_value`` and the episode-end flags around it.

What the RL rules ask about code: which products hold a discount factor, which names are episode-end flags
(done / terminated / truncated), whether an expression masks by such a flag, and the ``reward + gamma * X``
additions of a scope. Purely syntactic, by the names practitioners use (CleanRL, SB3, Spinning Up, tutorials).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

DONE_WORDS = re.compile(r"(done|terminal|terminat|nonterminal|not_?final|non_?final|episode_?end|finished|alive|mask)", re.IGNORECASE)
TERMINATED_WORD = re.compile(r"terminat", re.IGNORECASE)
TRUNCATED_WORD = re.compile(r"truncat|time_?out|timelimit", re.IGNORECASE)
GAMMA_WORD = re.compile(r"(gamma|discount)", re.IGNORECASE)
REWARD_WORD = re.compile(r"(^r$|^rs$|^rew|reward|^r_|_r$|^rb_r|^batch_r$)", re.IGNORECASE)
NEXT_VALUE_WORD = re.compile(r"(next|target|^q|_q|q_|value|^v$|^v_|_v$|bootstrap|max|critic|s2|s_prime)", re.IGNORECASE)


def names_in(node: ast.AST) -> list[str]:
    """Identifiers mentioned by ``node``: names, attribute names and called method names."""
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out.append(sub.id)
        elif isinstance(sub, ast.Attribute):
            out.append(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            out.append(sub.value)  # batch["dones"]
    return out


def mentions_done(node: ast.AST) -> bool:
    return any(DONE_WORDS.search(n) for n in names_in(node))


def product_factors(node: ast.AST) -> list[ast.expr]:
    """The factors of a chain of ``*`` (``a * b * c`` -> ``[a, b, c]``); a non-product is its own single factor."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return product_factors(node.left) + product_factors(node.right)
    return [node]  # type: ignore[list-item]


def is_gamma(node: ast.AST) -> bool:
    """A discount factor: a name/attribute with gamma/discount in it, or a constant in [0.8, 1)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return 0.8 <= node.value < 1.0
    if isinstance(node, (ast.Name, ast.Attribute)):
        return bool(GAMMA_WORD.search(node.id if isinstance(node, ast.Name) else node.attr))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):  # gamma ** n (n-step returns)
        return is_gamma(node.left)
    return False


def is_reward(node: ast.AST) -> bool:
    names = names_in(node)
    return bool(names) and any(REWARD_WORD.search(n) for n in names) and not any(GAMMA_WORD.search(n) for n in names)


@dataclass
class BootstrapTarget:
    node: ast.BinOp  # the addition reward + gamma * ...
    reward: ast.expr
    discounted: ast.expr  # gamma * next_value (* mask ...)
    factors: list[ast.expr]  # the product's factors other than gamma


def bootstrap_targets(scope: ast.AST) -> Iterator[BootstrapTarget]:
    """Every ``reward + gamma * next_value`` (either order) under ``scope`` whose next value looks like a value estimate."""
    for node in ast.walk(scope):
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Add):
            continue
        for reward, other in ((node.left, node.right), (node.right, node.left)):
            if not is_reward(reward):
                continue
            factors = product_factors(other)
            if len(factors) < 2 or not any(is_gamma(f) for f in factors):
                continue
            rest = [f for f in factors if not is_gamma(f)]
            if not any(NEXT_VALUE_WORD.search(n) for f in rest for n in names_in(f)):
                continue
            yield BootstrapTarget(node, reward, other, rest)
            break


def is_mask(node: ast.AST) -> bool:
    """A factor that zeroes terminal transitions: a done-like name, ``1 - x``, ``~x``, ``not x``, ``logical_not(x)``."""
    if mentions_done(node):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.left, ast.Constant) and node.left.value in (1, 1.0):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in ("logical_not", "bitwise_not"):
            return True
        if name in ("float", "to", "type", "int", "double") and isinstance(func, ast.Attribute):
            return is_mask(func.value)
    return False
