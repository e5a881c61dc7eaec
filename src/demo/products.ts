// The 60 demo products: promotions, delivery prices, weight and "starting at" products, combos
// with their items, product schedules (one crossing midnight as two windows), sold-out, removed.
type Window = { weekday: number; start: string; end: string };

type DemoProduct = {
  id: number;
  category: number;
  name: string;
  price: number;
  description?: string;
  promotion?: number;
  delivery?: number;
  deliveryPromotion?: number;
  available?: boolean;
  inDelivery?: boolean;
  soldOff?: boolean;
  weight?: boolean;
  startingAt?: boolean;
  serviceTax?: boolean;
  combo?: { min: number; items: number[] };
  groups?: number[];
  schedules?: Window[];
  fiscal?: string;
  removed?: boolean;
};

const PIZZA = { fiscal: 'pizza', groups: [300, 301, 302] };
const DRINK = { fiscal: 'drink', groups: [305] };
const ALL_WEEK = [0, 1, 2, 3, 4, 5, 6];

export const DEMO_PRODUCTS: DemoProduct[] = [
  {
    id: 1001,
    category: 101,
    name: 'Margherita',
    price: 42.9,
    delivery: 45.9,
    description: 'Molho de tomate, muçarela e manjericão',
    ...PIZZA,
  },
  { id: 1002, category: 101, name: 'Calabresa', price: 44.9, promotion: 39.9, delivery: 47.9, ...PIZZA },
  {
    id: 1003,
    category: 101,
    name: 'Quatro Queijos',
    price: 49.9,
    delivery: 52.9,
    deliveryPromotion: 47.9,
    ...PIZZA,
  },
  { id: 1004, category: 101, name: 'Portuguesa', price: 47.9, ...PIZZA },
  { id: 1005, category: 101, name: 'Frango com Catupiry', price: 46.9, promotion: 0, ...PIZZA },
  {
    id: 1006,
    category: 101,
    name: 'Pizza meio a meio',
    price: 39.9,
    startingAt: true,
    ...PIZZA,
    groups: [300, 304, 301],
  },
  { id: 1007, category: 101, name: 'Pizza de chocolate', price: 39.9, fiscal: 'pizza', groups: [300] },
  { id: 1008, category: 101, name: 'Pizza de atum', price: 45.9, removed: true, ...PIZZA },
  { id: 1011, category: 102, name: 'Espaguete à bolonhesa', price: 38.9, fiscal: 'pasta', groups: [303] },
  { id: 1012, category: 102, name: 'Lasanha da casa', price: 42.9, soldOff: true, fiscal: 'pasta' },
  { id: 1013, category: 102, name: 'Nhoque ao sugo', price: 36.9, inDelivery: false, fiscal: 'pasta' },
  {
    id: 1014,
    category: 102,
    name: 'Fettuccine Alfredo',
    price: 41.9,
    delivery: 0,
    fiscal: 'pasta',
    groups: [303, 302],
  },
  { id: 1021, category: 103, name: 'Executivo de frango', price: 29.9, delivery: 32.9 },
  { id: 1022, category: 103, name: 'Executivo de carne', price: 34.9, delivery: 37.9, fiscal: 'meat' },
  { id: 1023, category: 103, name: 'Buffet por quilo', price: 79.9, weight: true, inDelivery: false },
  {
    id: 1024,
    category: 103,
    name: 'Feijoada completa',
    price: 39.9,
    description: 'Às quartas e aos sábados',
    fiscal: 'meat',
    schedules: [3, 6].map((weekday) => ({ weekday, start: '11:00', end: '15:00' })),
  },
  { id: 1031, category: 104, name: 'Refrigerante lata', price: 6.5, delivery: 7.5, ...DRINK },
  { id: 1032, category: 104, name: 'Suco natural de laranja', price: 9.9, ...DRINK },
  { id: 1033, category: 104, name: 'Água mineral', price: 4.5, fiscal: 'water' },
  { id: 1034, category: 104, name: 'Cerveja long neck', price: 11.9, inDelivery: false, fiscal: 'beer' },
  {
    id: 1035,
    category: 104,
    name: 'Chopp 300 ml (happy hour)',
    price: 12.9,
    promotion: 9.9,
    available: true,
    inDelivery: false,
    fiscal: 'beer',
    schedules: [
      { weekday: 5, start: '18:00', end: '24:00' },
      { weekday: 6, start: '00:00', end: '02:00' },
    ],
  },
  { id: 1036, category: 104, name: 'Água com gás', price: 5, serviceTax: false, fiscal: 'water' },
  { id: 1041, category: 105, name: 'Tiramisù', price: 19.9, fiscal: 'dessert' },
  { id: 1042, category: 105, name: 'Pudim de leite', price: 12.9, fiscal: 'dessert' },
  { id: 1043, category: 105, name: 'Petit gâteau', price: 22.9, promotion: 18.9, fiscal: 'dessert' },
  { id: 1044, category: 105, name: 'Sorvete por quilo', price: 69.9, weight: true, fiscal: 'dessert' },
  {
    id: 1051,
    category: 106,
    name: 'Combo pizza + refri',
    price: 54.9,
    combo: { min: 2, items: [1001, 1002, 1031, 1033] },
  },
  {
    id: 1052,
    category: 106,
    name: 'Combo massa + suco',
    price: 44.9,
    delivery: 46.9,
    combo: { min: 2, items: [1011, 1013, 1032] },
  },
  { id: 1061, category: 107, name: 'Calzone de presunto', price: 32.9 },
  { id: 1062, category: 107, name: 'Bruschetta', price: 18.9, delivery: 19.9 },
  { id: 1063, category: 107, name: 'Panini de parma', price: 24.9, available: false },
  { id: 1064, category: 107, name: 'Salada caprese', price: 27.9, groups: [302] },
  { id: 1071, category: 108, name: 'Embalagem de pizza', price: 2, fiscal: 'packaging' },
  { id: 1072, category: 108, name: 'Embalagem de marmita', price: 1.5, fiscal: 'packaging' },
  { id: 1081, category: 109, name: 'Margherita (marketplace)', price: 49.9, fiscal: 'pizza' },
  { id: 1082, category: 109, name: 'Calabresa (marketplace)', price: 51.9, fiscal: 'pizza' },
  { id: 1091, category: 110, name: 'Panettone artesanal', price: 59.9, fiscal: 'dessert' },
  {
    id: 2001,
    category: 201,
    name: 'Tambaqui assado',
    price: 89.9,
    weight: true,
    fiscal: 'fish',
    groups: [312],
  },
  {
    id: 2002,
    category: 201,
    name: 'Pirarucu de casaca',
    price: 64.9,
    delivery: 69.9,
    fiscal: 'fish',
    groups: [313],
  },
  {
    id: 2003,
    category: 201,
    name: 'Caldeirada de tucunaré',
    price: 72.9,
    promotion: 64.9,
    fiscal: 'fish',
    groups: [313],
  },
  { id: 2004, category: 201, name: 'Vatapá', price: 38.9 },
  {
    id: 2005,
    category: 201,
    name: 'Tacacá',
    price: 24.9,
    description: 'Servido no fim da tarde',
    groups: [312],
    schedules: ALL_WEEK.map((weekday) => ({ weekday, start: '16:00', end: '21:00' })),
  },
  {
    id: 2006,
    category: 201,
    name: 'Picanha na chapa',
    price: 79.9,
    delivery: 84.9,
    fiscal: 'meat',
    groups: [313],
  },
  { id: 2007, category: 201, name: 'Baião de dois', price: 34.9, deliveryPromotion: 29.9 },
  {
    id: 2011,
    category: 202,
    name: 'Açaí na tigela',
    price: 14.9,
    startingAt: true,
    fiscal: 'acai',
    groups: [310, 311],
  },
  { id: 2012, category: 202, name: 'Açaí na garrafa 1 L', price: 29.9, fiscal: 'acai' },
  {
    id: 2013,
    category: 202,
    name: 'Creme de cupuaçu',
    price: 16.9,
    startingAt: true,
    fiscal: 'acai',
    groups: [310, 311],
  },
  { id: 2021, category: 203, name: 'Guaraná Baré lata', price: 6, fiscal: 'drink' },
  { id: 2022, category: 203, name: 'Suco de cupuaçu', price: 9, fiscal: 'drink' },
  { id: 2023, category: 203, name: 'Suco de taperebá', price: 9, soldOff: true, fiscal: 'drink' },
  { id: 2024, category: 203, name: 'Água mineral', price: 4, fiscal: 'water' },
  { id: 2025, category: 203, name: 'Cerveja regional', price: 12, inDelivery: false, fiscal: 'beer' },
  { id: 2031, category: 204, name: 'Pudim de tapioca', price: 11.9, fiscal: 'dessert' },
  { id: 2032, category: 204, name: 'Doce de cupuaçu', price: 10.9, promotion: 8.9, fiscal: 'dessert' },
  { id: 2033, category: 204, name: 'Bolo de macaxeira', price: 9.9, fiscal: 'dessert' },
  { id: 2041, category: 205, name: 'Filé de pirarucu', price: 119.9, weight: true, fiscal: 'fish' },
  {
    id: 2042,
    category: 205,
    name: 'Jaraqui frito',
    price: 59.9,
    weight: true,
    delivery: 64.9,
    fiscal: 'fish',
  },
  { id: 2043, category: 205, name: 'Matrinxã', price: 64.9, weight: true, fiscal: 'fish' },
  {
    id: 2051,
    category: 206,
    name: 'Combo almoço regional',
    price: 44.9,
    combo: { min: 2, items: [2004, 2021, 2022] },
  },
  { id: 2061, category: 207, name: 'Embalagem térmica', price: 3, fiscal: 'packaging' },
  {
    id: 2071,
    category: 208,
    name: 'Tambaqui assado (marketplace)',
    price: 99.9,
    weight: true,
    fiscal: 'fish',
  },
];
