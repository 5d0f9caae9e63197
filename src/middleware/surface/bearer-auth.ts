/**
 * The token rule, where the sidecar's configuration first found it; the HTTP kit owns it now
 * (src/http/bearer-auth.ts). Import it from there: this module goes once its last importer does.
 */
export { tokenProblem } from '../../http/bearer-auth.js';
