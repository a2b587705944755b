import { writeFile } from 'node:fs/promises';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../api/openapi/document.js';

// Rewrites the committed OpenAPI document (the defaults' limits, no server URL) after a route changed
// on purpose; test/unit/api/openapi.test.ts fails until it is rewritten.
const target = new URL('../docs/openapi.json', import.meta.url);
await writeFile(target, serializeOpenApiDocument(buildOpenApiDocument()));
process.stdout.write(`wrote ${target.pathname}\n`);
