/**
 * Writes dexdump -d text for small hand-made classes, in the layout dexdump prints (the lines the
 * reader looks at), so the flow checks have test vectors that need no JDK. Each instruction is
 * `offset: text` as dexdump prints it after the `|`, e.g. `0004: if-lt v0, v1, 0009 // +0005`.
 */
export interface VectorMethod {
  name: string;
  type: string;
  code: string[];
  /** `0x0000 - 0x0008` ranges with their handlers: `Ljava/io/IOException; -> 0x000a`. */
  catches?: Array<{ range: string; handlers: string[] }>;
}

export function dexdumpText(cls: { name: string; superName?: string; methods: VectorMethod[] }): string {
  const descriptor = `L${cls.name};`;
  const lines = [
    'Class #0            -',
    `  Class descriptor  : '${descriptor}'`,
    '  Access flags      : 0x0011 (PUBLIC FINAL)',
    `  Superclass        : 'L${cls.superName ?? 'java/lang/Object'};'`,
    '  Interfaces        -',
    '  Static fields     -',
    '  Instance fields   -',
    '  Direct methods    -',
    '  Virtual methods   -',
  ];
  cls.methods.forEach((m, n) => {
    lines.push(`    #${n}              : (in ${descriptor})`, `      name          : '${m.name}'`, `      type          : '${m.type}'`, '      access        : 0x0009 (PUBLIC STATIC)', '      code          -');
    lines.push(`000000:                                        |[000000] ${cls.name.replace(/\//g, '.')}.${m.name}:${m.type}`);
    for (const insn of m.code) lines.push(`000000: 0000                                   |${insn}`);
    if (!m.catches?.length) lines.push('      catches       : (none)');
    else {
      lines.push(`      catches       : ${m.catches.length}`);
      for (const c of m.catches) lines.push(`        ${c.range}`, ...c.handlers.map((h) => `          ${h}`));
    }
    lines.push('      positions     : ', '      locals        : ', '');
  });
  return lines.join('\n');
}
