// Types of scripts/ui-vendor.mjs for the TypeScript callers (the end-to-end test helpers).
export interface ImportMap { imports: Record<string, string> }
export function vendorUi(opts?: { root?: string; log?: (line: string) => void }): Promise<ImportMap>;
