import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Chromium keeps only the last `--enable-features` and the last `--disable-features` it is given,
 * and Playwright passes lists of its own before the caller's arguments: passing ours would silently
 * drop Playwright's (which, in a full Chromium, keep background services such as the media router's
 * network discovery off). This launcher merges every occurrence of each into one, then becomes the
 * real binary (exec: no extra process stays).
 */
export function featureMergingScript(executablePath: string): string {
  const quoted = `'${executablePath.replaceAll("'", `'\\''`)}'`;
  return `#!/bin/sh
enable=""
disable=""
for arg do
  shift
  case "$arg" in
    --enable-features=*) enable="\${enable:+$enable,}\${arg#--enable-features=}" ;;
    --disable-features=*) disable="\${disable:+$disable,}\${arg#--disable-features=}" ;;
    *) set -- "$@" "$arg" ;;
  esac
done
[ -z "$enable" ] || set -- "$@" "--enable-features=$enable"
[ -z "$disable" ] || set -- "$@" "--disable-features=$disable"
exec ${quoted} "$@"
`;
}

const written = new Map<string, Promise<string>>();

/** The path of a launcher for `executablePath` (written once per process, in a private temp dir). */
export function featureMergingLauncher(executablePath: string): Promise<string> {
  let launcher = written.get(executablePath);
  if (!launcher) {
    launcher = (async () => {
      const dir = await mkdtemp(join(tmpdir(), 'meetbot-chromium-'));
      const path = join(dir, 'chromium');
      await writeFile(path, featureMergingScript(executablePath));
      await chmod(path, 0o700);
      return path;
    })();
    written.set(executablePath, launcher);
  }
  return launcher;
}
