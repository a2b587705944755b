import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../shared/infra/config.js';

/** A setting the service reads but docs/settings.md never names is one nobody can find. */
describe('docs/settings.md', () => {
  it('names every setting the configuration reads', () => {
    const page = readFileSync(new URL('../../../docs/settings.md', import.meta.url), 'utf8');
    const undocumented = Object.keys(configSchema.shape).filter((name) => !page.includes(`\`${name}\``));
    expect(undocumented).toEqual([]);
  });
});
