import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createSimulator } from './server.js';

/** `npx tsx simulator/main.ts --port 4100 [--host 127.0.0.1]`: runs the simulator until interrupted. */
const { values } = parseArgs({
  options: { port: { type: 'string', default: '4100' }, host: { type: 'string', default: '127.0.0.1' } },
});
const options = z
  .object({ port: z.coerce.number().int().min(0).max(65535), host: z.string().min(1) })
  .safeParse(values);
if (!options.success) {
  console.error(
    `invalid arguments: ${options.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; ')}`,
  );
  process.exit(1);
}

const simulator = await createSimulator(options.data);
console.log(
  `meeting simulator listening on ${simulator.url} (dashboard at ${simulator.url}/, API under /api)`,
);
const stop = () => {
  simulator.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
