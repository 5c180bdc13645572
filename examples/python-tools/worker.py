"""A Python worker that serves the Arbor tool ``lookup_order``.

An Arbor worker declares the tool with ``defineRemoteTool({ name:
"lookup_order", ..., taskQueue: "orders-tools" })``. Each call the model
makes is then an activity of type ``tool:lookup_order`` on that task
queue, and this worker runs it. Its one argument is
``{"arguments": {...}, "context": {...}}``; what it returns goes back to
the model (a string as is, anything else as JSON text). The message of
a non-retryable error, or of the last retry, reaches the model as a
tool error.

Run it with:
    python3 -m venv .venv
    .venv/bin/pip install -r requirements.txt
    TEMPORAL_ADDRESS=localhost:7233 .venv/bin/python worker.py
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass
from typing import Any

from temporalio import activity
from temporalio.client import Client
from temporalio.envconfig import ClientConfig
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

ORDERS: dict[str, dict[str, Any]] = {
    "A-1001": {"status": "shipped", "carrier": "DHL", "total_eur": 59.9},
    "A-1002": {"status": "processing", "carrier": None, "total_eur": 12.5},
}
ORDER_ID = re.compile(r"^[A-Z]-\d{4}$")


@dataclass
class ToolContext:
    """Who calls. ``idempotency_key`` is the same on every retry."""

    session_id: str
    root_session_id: str
    owner: str
    tool_call_id: str
    idempotency_key: str


@dataclass
class ToolCall:
    """The activity's one argument, as Arbor sends it."""

    arguments: dict[str, Any]  # the model's, not validated by Arbor
    context: ToolContext


@activity.defn(name="tool:lookup_order")
async def lookup_order(call: ToolCall) -> dict[str, Any]:
    """Returns an order's status, or a tool error the model can read."""
    order_id = call.arguments.get("order_id")
    if not isinstance(order_id, str) or not ORDER_ID.match(order_id):
        raise ApplicationError(
            f"order_id must be a string like 'A-1001', not {order_id!r}",
            type="InvalidArguments",
            non_retryable=True,
        )
    order = ORDERS.get(order_id)
    if order is None:
        # Not retried: asking again will not make the order exist.
        raise ApplicationError(
            f"No order {order_id} was found; check the id with the customer.",
            type="OrderNotFound",
            non_retryable=True,
        )
    # A tool with an effect (a refund, a ticket) would make it happen
    # once per call.context.idempotency_key: calls are at least once.
    return {"order_id": order_id, **order}


async def main() -> None:
    # TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS and
    # profiles, read as Arbor reads them.
    config = ClientConfig.load_client_connect_config()
    config.setdefault("target_host", "localhost:7233")
    client = await Client.connect(**config)
    task_queue = os.environ.get("ORDERS_TASK_QUEUE", "orders-tools")
    worker = Worker(client, task_queue=task_queue, activities=[lookup_order])
    async with worker:
        print(f"orders tools worker ready on {task_queue}", flush=True)
        await asyncio.Event().wait()  # runs until Ctrl-C


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
