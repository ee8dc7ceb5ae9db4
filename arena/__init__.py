"""The arena: referee, bot processes, matches, records, tournaments and the gin-arena CLI."""
