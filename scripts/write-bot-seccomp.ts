import { writeFile } from 'node:fs/promises';
import { serializeBotSeccompProfile } from '../worker/runtime/bot-seccomp-profile.js';

// Rewrites docker/bot-seccomp.json (the bot containers' seccomp profile as a file, for operators to
// read or pass to `docker run`) after the profile changed on purpose; a unit test fails until then.
const target = new URL('../docker/bot-seccomp.json', import.meta.url);
await writeFile(target, serializeBotSeccompProfile());
process.stdout.write(`wrote ${target.pathname}\n`);
