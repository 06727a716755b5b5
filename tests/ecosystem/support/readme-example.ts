/** The first TypeScript block of a README section, as a customer would copy it. */
export function readmeExample(readme: string, heading: string): string {
  const section = readme.slice(readme.indexOf(heading));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`no TypeScript example under "${heading}"`);
  return block;
}
