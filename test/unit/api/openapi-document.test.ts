import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../../../api/openapi/document.js';

const COMMITTED = readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8');

describe('the OpenAPI document', () => {
  it('is the committed docs/openapi.json (after a deliberate change: npm run openapi)', () => {
    const built = buildOpenApiDocument();
    expect(built).toEqual(JSON.parse(COMMITTED));
    expect(serializeOpenApiDocument(built)).toBe(COMMITTED);
    // What clients get: Koa writes the object as compact JSON, in the same member order.
    expect(JSON.stringify(built)).toBe(JSON.stringify(JSON.parse(COMMITTED)));
  });
});
