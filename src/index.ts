export * from './client.js';
export * from './worker.js';
export * from './tools.js';
export { loadConnectionSettings, type ConnectionSettings } from './client/connection.js';
export { modelSettingsFromEnv, type ModelSettings } from './activities/model-settings.js';
export {
  defaultPrices,
  defaultPricesCheckedOn,
  defaultPricesTakenOn,
  pricesFrom,
  type ModelPrice,
  type PriceTable,
} from './activities/prices.js';
