/**
 * Real Chinese high-speed stations with approximate coordinates, grouped into corridors (lines
 * in geographic order). Distances along a corridor come from the coordinates with a detour factor;
 * they are plausible, not official.
 */
export interface Station {
  index: number;
  name: string;
  lat: number;
  lon: number;
  /** 3 = hub, 2 = city, 1 = minor stop: hubs are chosen more often as termini. */
  weight: number;
  /** Two characters that open the 12306-style internal code of trains starting here. */
  code2: string;
}

export interface Corridor {
  name: string;
  /** Line speed in km/h. */
  lineSpeed: number;
  /** Intercity lines run mostly C trains. */
  intercity: boolean;
  stations: number[];
  /** Kilometres from the corridor's first station, per position. */
  km: number[];
}

type StationRow = readonly [name: string, lat: number, lon: number, weight: number];

const STATION_ROWS: readonly StationRow[] = [
  // 京沪
  ['北京南', 39.865, 116.379, 3],
  ['天津南', 39.06, 117.06, 2],
  ['沧州西', 38.31, 116.8, 1],
  ['德州东', 37.45, 116.36, 1],
  ['济南西', 36.67, 116.89, 3],
  ['泰安', 36.17, 117.07, 1],
  ['曲阜东', 35.58, 117.03, 1],
  ['滕州东', 35.08, 117.2, 1],
  ['徐州东', 34.28, 117.3, 2],
  ['蚌埠南', 32.86, 117.33, 2],
  ['滁州', 32.3, 118.31, 1],
  ['南京南', 31.97, 118.8, 3],
  ['镇江南', 32.16, 119.43, 1],
  ['常州北', 31.84, 119.97, 2],
  ['无锡东', 31.59, 120.43, 1],
  ['苏州北', 31.42, 120.64, 2],
  ['昆山南', 31.38, 120.96, 1],
  ['上海虹桥', 31.19, 121.32, 3],
  // 京广
  ['北京西', 39.89, 116.32, 3],
  ['保定东', 38.86, 115.57, 2],
  ['石家庄', 38.01, 114.48, 3],
  ['邢台东', 37.08, 114.57, 1],
  ['邯郸东', 36.61, 114.55, 1],
  ['安阳东', 36.1, 114.4, 1],
  ['新乡东', 35.3, 113.93, 1],
  ['郑州东', 34.77, 113.78, 3],
  ['许昌东', 34.04, 113.86, 1],
  ['驻马店西', 32.98, 114.0, 1],
  ['信阳东', 32.13, 114.12, 1],
  ['孝感北', 31.0, 113.93, 1],
  ['武汉', 30.61, 114.42, 3],
  ['咸宁北', 29.87, 114.32, 1],
  ['岳阳东', 29.37, 113.17, 2],
  ['长沙南', 28.15, 113.06, 3],
  ['株洲西', 27.83, 113.08, 1],
  ['衡阳东', 26.9, 112.66, 2],
  ['郴州西', 25.79, 113.01, 1],
  ['韶关', 24.79, 113.59, 1],
  ['清远', 23.71, 113.04, 1],
  ['广州南', 22.99, 113.27, 3],
  // 广深港
  ['虎门', 22.83, 113.68, 1],
  ['深圳北', 22.61, 114.03, 3],
  ['福田', 22.54, 114.06, 2],
  // 沪昆
  ['松江南', 30.98, 121.23, 1],
  ['嘉兴南', 30.7, 120.77, 1],
  ['杭州东', 30.29, 120.21, 3],
  ['义乌', 29.35, 120.08, 2],
  ['金华', 29.1, 119.65, 2],
  ['衢州', 28.97, 118.86, 1],
  ['上饶', 28.45, 117.96, 2],
  ['鹰潭北', 28.27, 117.07, 1],
  ['南昌西', 28.63, 115.8, 3],
  ['新余北', 27.85, 114.95, 1],
  ['萍乡北', 27.63, 113.86, 1],
  ['娄底南', 27.7, 112.0, 1],
  ['怀化南', 27.54, 109.97, 1],
  ['凯里南', 26.58, 107.98, 1],
  ['贵阳北', 26.62, 106.67, 3],
  ['安顺西', 26.26, 105.91, 1],
  ['曲靖北', 25.55, 103.8, 1],
  ['昆明南', 24.87, 102.86, 3],
  // 徐兰
  ['商丘', 34.42, 115.66, 2],
  ['开封北', 34.83, 114.36, 1],
  ['洛阳龙门', 34.61, 112.46, 2],
  ['三门峡南', 34.73, 111.16, 1],
  ['华山北', 34.54, 110.06, 1],
  ['西安北', 34.38, 108.94, 3],
  ['宝鸡南', 34.35, 107.16, 1],
  ['天水南', 34.57, 105.73, 1],
  ['兰州西', 36.07, 103.75, 3],
  // 沪汉蓉
  ['合肥南', 31.8, 117.29, 3],
  ['六安', 31.74, 116.52, 1],
  ['麻城北', 31.2, 115.03, 1],
  ['汉口', 30.62, 114.25, 3],
  ['荆州', 30.33, 112.24, 1],
  ['宜昌东', 30.69, 111.35, 2],
  ['恩施', 30.28, 109.49, 1],
  ['涪陵北', 29.73, 107.39, 1],
  ['重庆北', 29.61, 106.55, 3],
  // 成渝, 西成
  ['内江北', 29.61, 105.06, 1],
  ['资阳北', 30.14, 104.65, 1],
  ['成都东', 30.63, 104.14, 3],
  ['汉中', 33.07, 107.02, 1],
  ['广元', 32.44, 105.85, 1],
  ['绵阳', 31.47, 104.74, 2],
  ['德阳', 31.13, 104.39, 1],
  // 杭深
  ['绍兴北', 30.05, 120.58, 1],
  ['宁波', 29.86, 121.54, 3],
  ['台州', 28.64, 121.37, 1],
  ['温州南', 27.95, 120.59, 2],
  ['宁德', 26.66, 119.53, 1],
  ['福州南', 25.99, 119.39, 3],
  ['莆田', 25.45, 119.0, 1],
  ['泉州', 24.96, 118.55, 2],
  ['厦门北', 24.64, 118.07, 3],
  ['潮汕', 23.54, 116.59, 2],
  ['惠州南', 22.75, 114.51, 1],
  // 京哈, 沈大
  ['北京朝阳', 39.94, 116.51, 3],
  ['承德南', 40.91, 117.92, 1],
  ['沈阳北', 41.82, 123.44, 3],
  ['长春西', 43.85, 125.19, 2],
  ['哈尔滨西', 45.71, 126.58, 3],
  ['鞍山西', 41.08, 122.95, 1],
  ['大连北', 38.99, 121.62, 3],
  // 京津, 沪宁, 广珠, 成灌 (intercity)
  ['武清', 39.38, 117.05, 1],
  ['天津', 39.13, 117.21, 3],
  ['于家堡', 39.02, 117.7, 1],
  ['上海', 31.25, 121.46, 3],
  ['苏州', 31.33, 120.61, 2],
  ['无锡', 31.59, 120.3, 2],
  ['常州', 31.79, 119.97, 1],
  ['南京', 32.09, 118.8, 3],
  ['中山', 22.54, 113.37, 1],
  ['珠海', 22.21, 113.55, 2],
  ['成都', 30.7, 104.07, 3],
  ['都江堰', 30.99, 103.65, 1],
  ['青城山', 30.9, 103.57, 1],
  // 胶济, 石太, 京张
  ['淄博', 36.8, 118.05, 1],
  ['潍坊', 36.71, 119.1, 2],
  ['青岛北', 36.17, 120.38, 3],
  ['青岛', 36.06, 120.31, 2],
  ['阳泉北', 37.87, 113.57, 1],
  ['太原南', 37.79, 112.59, 3],
  ['北京北', 39.94, 116.35, 2],
  ['清河', 40.04, 116.32, 1],
  ['张家口', 40.8, 114.87, 2],
  ['大同南', 40.04, 113.33, 1],
  // 贵广, 南广, 郑渝, 宁杭, 郑济, 合福, 昌赣深, 武九
  ['都匀东', 26.28, 107.57, 1],
  ['桂林北', 25.33, 110.3, 2],
  ['贺州', 24.4, 111.55, 1],
  ['肇庆东', 23.16, 112.51, 1],
  ['佛山西', 23.07, 112.99, 1],
  ['南宁东', 22.83, 108.46, 3],
  ['梧州南', 23.44, 111.29, 1],
  ['南阳东', 33.01, 112.55, 1],
  ['襄阳东', 32.05, 112.24, 2],
  ['万州北', 30.83, 108.41, 1],
  ['宜兴', 31.34, 119.82, 1],
  ['湖州', 30.88, 120.09, 1],
  ['聊城西', 36.44, 115.92, 1],
  ['黄山北', 29.73, 118.31, 2],
  ['武夷山东', 27.74, 118.06, 1],
  ['福州', 26.11, 119.32, 2],
  ['吉安西', 27.1, 114.93, 1],
  ['赣州西', 25.88, 114.91, 2],
  ['河源东', 23.73, 114.75, 1],
  ['黄石北', 30.21, 115.07, 1],
  ['九江', 29.69, 116.0, 2],
];

type CorridorRow = readonly [name: string, lineSpeed: number, intercity: boolean, list: string];

const CORRIDOR_ROWS: readonly CorridorRow[] = [
  [
    '京沪高铁',
    350,
    false,
    '北京南 天津南 沧州西 德州东 济南西 泰安 曲阜东 滕州东 徐州东 蚌埠南 滁州 南京南 镇江南 常州北 无锡东 苏州北 昆山南 上海虹桥',
  ],
  [
    '京广高铁',
    350,
    false,
    '北京西 保定东 石家庄 邢台东 邯郸东 安阳东 新乡东 郑州东 许昌东 驻马店西 信阳东 孝感北 武汉 咸宁北 岳阳东 长沙南 株洲西 衡阳东 郴州西 韶关 清远 广州南',
  ],
  ['广深港高铁', 300, false, '广州南 虎门 深圳北 福田'],
  [
    '沪昆高铁',
    300,
    false,
    '上海虹桥 松江南 嘉兴南 杭州东 义乌 金华 衢州 上饶 鹰潭北 南昌西 新余北 萍乡北 长沙南 娄底南 怀化南 凯里南 贵阳北 安顺西 曲靖北 昆明南',
  ],
  [
    '徐兰高铁',
    300,
    false,
    '徐州东 商丘 开封北 郑州东 洛阳龙门 三门峡南 华山北 西安北 宝鸡南 天水南 兰州西',
  ],
  ['沪汉蓉铁路', 250, false, '南京南 合肥南 六安 麻城北 汉口 荆州 宜昌东 恩施 涪陵北 重庆北'],
  ['成渝高铁', 350, false, '重庆北 内江北 资阳北 成都东'],
  ['西成高铁', 250, false, '西安北 汉中 广元 绵阳 德阳 成都东'],
  [
    '杭深铁路',
    250,
    false,
    '杭州东 绍兴北 宁波 台州 温州南 宁德 福州南 莆田 泉州 厦门北 潮汕 惠州南 深圳北',
  ],
  ['京哈高铁', 350, false, '北京朝阳 承德南 沈阳北 长春西 哈尔滨西'],
  ['沈大高铁', 300, false, '沈阳北 鞍山西 大连北'],
  ['京津城际', 350, true, '北京南 武清 天津 于家堡'],
  ['沪宁城际', 300, true, '上海 苏州 无锡 常州 南京'],
  ['广珠城际', 200, true, '广州南 中山 珠海'],
  ['成灌铁路', 200, true, '成都 都江堰 青城山'],
  ['胶济客专', 250, false, '济南西 淄博 潍坊 青岛北 青岛'],
  ['石太客专', 250, false, '石家庄 阳泉北 太原南'],
  ['京张高铁', 350, false, '北京北 清河 张家口 大同南'],
  ['贵广高铁', 250, false, '贵阳北 都匀东 桂林北 贺州 肇庆东 佛山西 广州南'],
  ['南广铁路', 250, false, '南宁东 梧州南 肇庆东 佛山西 广州南'],
  ['郑渝高铁', 350, false, '郑州东 南阳东 襄阳东 万州北 重庆北'],
  ['宁杭高铁', 350, false, '南京南 宜兴 湖州 杭州东'],
  ['郑济高铁', 350, false, '郑州东 聊城西 济南西'],
  ['合福高铁', 300, false, '合肥南 黄山北 上饶 武夷山东 福州'],
  ['昌赣深高铁', 350, false, '南昌西 吉安西 赣州西 河源东 深圳北'],
  ['武九客专', 250, false, '武汉 黄石北 九江 南昌西'],
];

// Lines wind: track length is longer than the great-circle distance.
const DETOUR = 1.05;
const CODE_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

function greatCircleKm(a: Station, b: Station): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/** Where two stations meet on a corridor: the corridor and both positions on it. */
export interface Leg {
  corridor: Corridor;
  fromPos: number;
  toPos: number;
  km: number;
}

export interface StationNetwork {
  stations: Station[];
  corridors: Corridor[];
  byName: Map<string, Station>;
  /** Corridors through each station. */
  corridorsAt: Corridor[][];
  /** Shortest corridor leg between two stations that share a corridor. */
  leg(from: number, to: number): Leg | undefined;
}

export function buildStationNetwork(): StationNetwork {
  const stations: Station[] = STATION_ROWS.map(([name, lat, lon, weight], index) => ({
    index,
    name,
    lat,
    lon,
    weight,
    // Offset so that codes look like 12306's ("24", "5l"), not "00".
    code2: CODE_ALPHABET[Math.floor((index + 80) / 36) % 36]! + CODE_ALPHABET[(index + 80) % 36]!,
  }));
  const byName = new Map(stations.map((s) => [s.name, s]));
  if (byName.size !== stations.length) throw new Error('duplicate station name in STATION_ROWS');

  const corridors: Corridor[] = CORRIDOR_ROWS.map(([name, lineSpeed, intercity, list]) => {
    const ids = list.split(' ').map((n) => {
      const s = byName.get(n);
      if (!s) throw new Error(`corridor ${name} names unknown station ${n}`);
      return s.index;
    });
    const km = [0];
    for (let i = 1; i < ids.length; i++) {
      const d = greatCircleKm(stations[ids[i - 1]!]!, stations[ids[i]!]!) * DETOUR;
      km.push(km[i - 1]! + Math.max(15, Math.round(d)));
    }
    return { name, lineSpeed, intercity, stations: ids, km };
  });

  const corridorsAt: Corridor[][] = stations.map(() => []);
  for (const c of corridors) for (const s of c.stations) corridorsAt[s]!.push(c);

  const legs = new Map<number, Leg>();
  const n = stations.length;
  for (const c of corridors) {
    for (let i = 0; i < c.stations.length; i++) {
      for (let j = 0; j < c.stations.length; j++) {
        if (i === j) continue;
        const key = c.stations[i]! * n + c.stations[j]!;
        const km = Math.abs(c.km[j]! - c.km[i]!);
        const known = legs.get(key);
        if (!known || km < known.km) legs.set(key, { corridor: c, fromPos: i, toPos: j, km });
      }
    }
  }
  return {
    stations,
    corridors,
    byName,
    corridorsAt,
    leg: (from, to) => legs.get(from * n + to),
  };
}
