"""Shared by the import-layer tests: the cycles of a module graph."""

from __future__ import annotations


def find_cycles(graph: dict[str, set[str]]) -> list[str]:
    """Every back edge of a depth-first walk, as ``a -> b -> a``; empty when the graph has no cycle."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cycles: list[str] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*stack[stack.index(nxt):], nxt]))
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles
