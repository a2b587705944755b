import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/** A relative link in a markdown file that leads nowhere. */
export interface BrokenLink {
  file: string;
  target: string;
  problem: string;
}

/** Code is not prose: links shown inside fences or backticks are examples, not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Every `[text](target)` target, titles dropped; autolinks and reference definitions are not used here. */
export function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of withoutCode(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(match[1]!);
  }
  return targets;
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a markdown file's headings make, repeated headings numbered as GitHub numbers them. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = headingSlug(match[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The relative links of one markdown file (at `file`, read from disk unless `markdown` is given)
 * whose file does not exist inside `root`, or whose `#anchor` names no heading of the markdown
 * file it points at.
 */
export function brokenLinks(root: string, file: string, markdown = readFileSync(file, 'utf8')): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const name = relative(root, file);
  for (const target of linkTargets(markdown)) {
    if (EXTERNAL.test(target)) continue;
    const [path = '', anchor] = target.split('#', 2);
    const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (relative(root, destination).startsWith('..')) {
      broken.push({ file: name, target, problem: 'points outside the repository' });
      continue;
    }
    if (path !== '' && !existsSync(destination)) {
      broken.push({ file: name, target, problem: 'no such file' });
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (!destination.endsWith('.md') || (path !== '' && statSync(destination).isDirectory())) {
      broken.push({ file: name, target, problem: 'an anchor into something that is not a markdown file' });
      continue;
    }
    const anchors = headingAnchors(destination === file ? markdown : readFileSync(destination, 'utf8'));
    if (!anchors.has(anchor)) broken.push({ file: name, target, problem: `no heading makes #${anchor}` });
  }
  return broken;
}
