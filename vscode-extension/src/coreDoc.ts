// The desugared-core view is a read-only virtual document whose URI names the source document:
// `opal-core:/path/NAME.opal.core?<source URI>`. Free of `vscode` (plain strings) for the tests.

export const CORE_SCHEME = 'opal-core';

/** The path shown as the core document's title: the source's file name plus `.core`. */
export function corePath(sourceUri: string): string {
  const withoutQuery = sourceUri.split(/[?#]/)[0];
  const name = decodeURIComponent(withoutQuery.slice(withoutQuery.lastIndexOf('/') + 1)) || 'untitled';
  return `/${name}.core`;
}

/** The source URI a core document shows (stored in the query, percent-encoded). */
export function sourceOf(coreQuery: string): string {
  return decodeURIComponent(coreQuery);
}

export function coreQuery(sourceUri: string): string {
  return encodeURIComponent(sourceUri);
}

/** Header comment of the view, so a reader knows what they are looking at. */
export function coreText(sourceUri: string, body: string): string {
  return `# Desugared core of ${sourceUri} (read-only; refreshed as you edit).\n# Each top-level statement starts with its initial label (SEMANTICS.md §3).\n${body}`;
}
