import checkServices from './global-setup.js';
import { BOT_IMAGE_READY_ENV, ensureBotImage } from './stack.js';

/**
 * Once per run, before any e2e file: Postgres and Redis answer, and the project is compiled and the
 * bot image built. Files then only check the mark this leaves (each file used to compile and ask
 * Docker again, about fifteen times a run); a file run on its own still gets here first.
 */
export default async function prepareEndToEnd(): Promise<void> {
  await checkServices();
  await ensureBotImage();
  process.env[BOT_IMAGE_READY_ENV] = '1';
}
