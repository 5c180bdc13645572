export { arborSessionV3, arborSessionV2, arborSession, sessionWorkflow } from './session-workflow.js';
export { memoryStoreWorkflow } from './memory-store-workflow.js';
