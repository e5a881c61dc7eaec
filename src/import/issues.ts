// A rejected import lists every problem found, each naming collection, index and field
// (`products[3].product_category_id: ...`); nothing is written when there is one.

const SHOWN = 50;

export class ImportError extends Error {
  readonly issues: string[];

  constructor(issues: string[], heading = 'import rejected, nothing was written') {
    const shown = issues.slice(0, SHOWN).map((issue) => `  ${issue}`);
    if (issues.length > SHOWN) shown.push(`  ... and ${issues.length - SHOWN} more`);
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super(`${heading} (${count}):\n${shown.join('\n')}`);
    this.name = 'ImportError';
    this.issues = issues;
  }
}

/** A field's value is wrong; `path` continues the field's path (`[2].end`, `.ncm`). */
export class FieldProblem extends Error {
  readonly path: string;

  constructor(message: string, path = '') {
    super(message);
    this.path = path;
  }
}

export class Issues {
  readonly list: string[] = [];

  add(at: string, message: string): void {
    this.list.push(`${at}: ${message}`);
  }

  get count(): number {
    return this.list.length;
  }

  throwIfAny(heading?: string): void {
    if (this.list.length) throw new ImportError(this.list, heading);
  }
}
