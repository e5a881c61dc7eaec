// The client's hand-written wire types against the types generated from the server's OpenAPI
// document (the server's TypeBox schemas): compiled by tsc in test/client/wire-types.test.ts, it
// fails as soon as a field is added, renamed, retyped or made optional on one side only.

import type { components, operations } from './api.ts';
import type * as client from './client/index.ts';

type Schemas = components['schemas'];
type Query<Operation extends keyof operations> = Omit<
  NonNullable<operations[Operation]['parameters']['query']>,
  'restaurant_id'
>;

/** Every property required, at every depth: a field optional on one side only stays visible. */
type Required<T> = T extends readonly (infer Item)[]
  ? Required<Item>[]
  : T extends object
    ? { [Key in keyof T]-?: Required<T[Key]> }
    : T;
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Same<A, B> = Mutual<A, B> extends true ? Mutual<Required<A>, Required<B>> : false;
type Expect<T extends true> = T;
/** Whether every answer typed `Server` is a `Client`. */
type Reads<Client, Server> = [Server] extends [Client] ? true : false;
/** The NF-e detail's groups copied from the fiscal provider. */
type Loose = 'invoice' | 'protocol';

export type WireTypes = {
  Product: Expect<Same<client.Product, Schemas['Product']>>;
  ListedProduct: Expect<Same<client.ListedProduct, Schemas['ListedProduct']>>;
  Fiscal: Expect<Same<client.Fiscal, Schemas['Fiscal']>>;
  CatalogCategory: Expect<Same<client.CatalogCategory, Schemas['Category']>>;
  ProductCreate: Expect<Same<client.ProductCreate, Schemas['ProductInput']>>;
  ProductEdit: Expect<Same<client.ProductEdit, Schemas['ProductEdit']>>;
  ProductBulkEdit: Expect<Same<client.ProductBulkEdit, Schemas['BulkEditItem']>>;
  ProductAvailability: Expect<Same<client.ProductAvailability, Schemas['ProductAvailability']>>;
  ProductChange: Expect<Same<client.ProductChange, Schemas['Change']>>;
  ProductReview: Expect<Same<client.ProductReview, Schemas['ProductPreview']>>;
  ProductDryRun: Expect<Same<client.ProductDryRun, Schemas['ChangeReview']>>;
  ProductHistoryPage: Expect<Same<client.ProductHistoryPage, Schemas['ProductHistory']>>;
  ProductHistoryQuery: Expect<Same<client.ProductHistoryQuery, Query<'getProductHistory'>>>;
  Menu: Expect<Same<client.Menu, Schemas['Menu']>>;
  MenuProduct: Expect<Same<client.MenuProduct, Schemas['MenuProduct']>>;
  MenuQuery: Expect<Same<client.MenuQuery, Query<'listMenu'>>>;
  CashFlowsPage: Expect<Same<client.CashFlowsPage, Schemas['CashFlowsPage']>>;
  CashFlowEntry: Expect<Same<client.CashFlowEntry, Schemas['CashFlow']>>;
  CashFlowItem: Expect<Same<client.CashFlowItem, Schemas['CashFlowItem']>>;
  CashFlowsQuery: Expect<Same<client.CashFlowsQuery, Query<'listCashFlows'>>>;
  Me: Expect<Same<client.Me, Schemas['Me']>>;
  Brand: Expect<Same<client.Brand, Schemas['Brand']>>;
  ReceivedNfe: Expect<Same<client.ReceivedNfe, Schemas['NfeReceived']>>;
  ReceivedNfeDetail: Expect<Same<Omit<client.ReceivedNfeDetail, Loose>, Omit<Schemas['NfeDetail'], Loose>>>;
  /** The client types the provider's groups loosely: every answer of the server fits them. */
  ReceivedNfeDetailGroups: Expect<Reads<client.ReceivedNfeDetail, Schemas['NfeDetail']>>;
  NfeListQuery: Expect<Same<client.NfeListQuery, Query<'listReceivedNfe'>>>;
};
