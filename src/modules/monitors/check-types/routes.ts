// GET /api/monitors/check-types: what the monitor form and pages draw from (check-types/catalog.ts).
// Scope monitors:read, as the other monitor reads.
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { listOf } from '../../../core/http/schemas.js';
import { checkTypeList, CheckTypeSchema } from './catalog.js';

export function checkTypeRoutes(): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/monitors/check-types', scope: 'monitors:read',
      summary: 'Check types, with their settings as JSON Schema',
      description: 'Each check type\'s label, icon, hint and target field, its settings as JSON Schema (title and description ' +
        'per field; secrets writeOnly; presentation keywords x-section, x-visible-when, x-enum-titles, x-multiline, ' +
        'x-add-label), the settings a monitor gets when it sends none, and the monitor fields that apply to it alone. ' +
        'The web UI\'s monitor form and pages render from it.',
      response: listOf(CheckTypeSchema),
      handler: () => {
        const items = checkTypeList();
        return { items, total: items.length };
      },
    }),
  ];
}
