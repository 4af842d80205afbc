// Runs SQL queries with DuckDB (an independent Parquet reader) and prints
// their results as JSON: {"<name>": [rows...], ...}. Usage:
//   node query.mjs QUERIES.json
// where QUERIES.json maps a name to a SQL text.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const queries = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const out = {};
for (const [name, sql] of Object.entries(queries)) {
  const reader = await conn.runAndReadAll(sql);
  out[name] = reader.getRowObjectsJson();
}
process.stdout.write(JSON.stringify(out));
