"""Drives `adcab mcp --key-stdin` with the official Python `mcp` package's stdio client.

Run by tests/it/mcp_python.rs (which makes the database, the key and the campaign) with:
ADCAB_BIN, ADCAB_CONFIG, ADCAB_KEY, ADCAB_AD (a running campaign of the key's only cabinet)
and ADCAB_API (the API's base URL, to check the pause through it). The server is started the
way the README tells an assistant to start it: a shell that prints the key, then passes the
client's messages on. Checks: initialize, list tools, read campaigns, pause one (read back
through the API), a write refused in read-only mode and one past the money cap.
Prints one line per check and a closing 'N passed, N failed'; exits non-zero on a failure.
"""

import asyncio
import json
import os
import sys
import urllib.request

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

AD = int(os.environ["ADCAB_AD"])
KEY = os.environ["ADCAB_KEY"]
RESULTS = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(f"{'ok' if ok else 'FAILED'}: {name}{'' if ok else ' -- ' + str(detail)}", flush=True)


def server(*flags):
    command = '{ printf "%s\\n" "$ADCAB_KEY"; cat; } | "$ADCAB_BIN" --config "$ADCAB_CONFIG" mcp --key-stdin'
    command += "".join(f" {flag}" for flag in flags)
    env = {name: os.environ[name] for name in ("ADCAB_BIN", "ADCAB_CONFIG", "ADCAB_KEY")}
    return StdioServerParameters(command="sh", args=["-c", command], env=env)


def answer(result):
    """A tool result's JSON (its text content) and whether it is an error."""
    return result.is_error, json.loads(result.content[0].text)


def api_campaign():
    req = urllib.request.Request(f"{os.environ['ADCAB_API']}/campaigns/{AD}", headers={"X-API-Key": KEY})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["data"]


async def writes():
    async with stdio_client(server("--max-money", "5")) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check("initialize names the server", init.server_info.name == "adcab", init)
            tools = {t.name: t for t in (await session.list_tools()).tools}
            check("the tools are listed", {"list_campaigns", "pause_campaign", "move_budget"} <= set(tools), list(tools))
            check(
                "pause is a destructive write",
                tools["pause_campaign"].annotations.read_only_hint is False
                and tools["pause_campaign"].annotations.destructive_hint is True,
                tools["pause_campaign"].annotations,
            )
            failed, listed = answer(await session.call_tool("list_campaigns", {}))
            ids = [c["ad_id"] for c in listed.get("campaigns", [])]
            check("campaigns are read", not failed and AD in ids, listed)
            check("the API reads it running before", api_campaign()["active"] is True)
            failed, paused = answer(await session.call_tool("pause_campaign", {"ad_id": AD}))
            check("a campaign is paused", not failed and paused["campaign"]["active"] is False, paused)
            check("the API reads it paused", api_campaign()["active"] is False)
            failed, over = answer(
                await session.call_tool("move_budget", {"ad_id": AD, "action": "add", "amount": "6"})
            )
            check("a top-up past the money cap is refused", failed and over["error"]["code"] == "MONEY_CAP_REACHED", over)


async def read_only():
    async with stdio_client(server("--read-only")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            check("a read-only session lists no write tool", "resume_campaign" not in names, names)
            failed, refused = answer(await session.call_tool("resume_campaign", {"ad_id": AD}))
            check("a write is refused in read-only mode", failed and refused["error"]["code"] == "READ_ONLY_SESSION", refused)
            check("the API still reads it paused", api_campaign()["active"] is False)


async def main():
    await writes()
    await read_only()
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed", flush=True)
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
