-- The assistant that made a change in a campaign's history: the MCP client's name as it gave
-- it in `initialize` (`clientInfo.name`), for changes made through `adcab mcp` or `POST /mcp`
-- (source `automation`). Null for every other change and for rows from before.
ALTER TABLE campaign_history ADD COLUMN client TEXT;
