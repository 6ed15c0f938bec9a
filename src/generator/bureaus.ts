/**
 * Railway bureaus (路局) with their 12306 one-letter codes, and the depots that keep their
 * units. A depot (动车所) belongs to a train depot (动车段) and sits at a home station, where the
 * circulations of its units start and end.
 */
export interface Depot {
  trainDepot: string;
  depot: string;
  /** The 客运段 that staffs trains run by this depot's units. */
  passengerDepartment: string;
  home: string;
  weight: number;
}

export interface Bureau {
  name: string;
  code: string;
  /** Share of the national fleet. */
  fleetWeight: number;
  /** Cold-climate bureaus keep the cold-resistant (G) models and most CRH5 units. */
  north: boolean;
  depots: Depot[];
}

function depot(
  trainDepot: string,
  depotName: string,
  passengerDepartment: string,
  home: string,
  weight: number,
): Depot {
  return { trainDepot, depot: depotName, passengerDepartment, home, weight };
}

export const BUREAUS: readonly Bureau[] = [
  {
    name: '上海局',
    code: 'H',
    fleetWeight: 20,
    north: false,
    depots: [
      depot('上海动车段', '上海虹桥动车所', '上海客运段', '上海虹桥', 5),
      depot('上海动车段', '上海南动车所', '上海客运段', '上海', 2),
      depot('南京动车段', '南京南动车所', '南京客运段', '南京南', 3),
      depot('南京动车段', '南京动车所', '南京客运段', '南京', 1),
      depot('杭州动车段', '杭州东动车所', '杭州客运段', '杭州东', 3),
      depot('杭州动车段', '宁波动车所', '杭州客运段', '宁波', 1),
      depot('合肥动车段', '合肥南动车所', '合肥客运段', '合肥南', 2),
    ],
  },
  {
    name: '北京局',
    code: 'P',
    fleetWeight: 12,
    north: true,
    depots: [
      depot('北京动车段', '北京南动车所', '北京客运段', '北京南', 4),
      depot('北京动车段', '北京西动车所', '北京客运段', '北京西', 3),
      depot('北京动车段', '北京北动车所', '北京客运段', '北京北', 1),
      depot('北京动车段', '北京朝阳动车所', '北京客运段', '北京朝阳', 1),
      depot('天津动车段', '天津动车所', '天津客运段', '天津', 2),
      depot('石家庄动车段', '石家庄动车所', '石家庄客运段', '石家庄', 1),
    ],
  },
  {
    name: '广州局',
    code: 'Q',
    fleetWeight: 14,
    north: false,
    depots: [
      depot('广州动车段', '广州南动车所', '广州客运段', '广州南', 5),
      depot('广州动车段', '深圳北动车所', '深圳客运段', '深圳北', 2),
      depot('长沙动车段', '长沙南动车所', '长沙客运段', '长沙南', 3),
    ],
  },
  {
    name: '成都局',
    code: 'W',
    fleetWeight: 8,
    north: false,
    depots: [
      depot('成都动车段', '成都东动车所', '成都客运段', '成都东', 4),
      depot('成都动车段', '成都动车所', '成都客运段', '成都', 1),
      depot('重庆动车段', '重庆北动车所', '重庆客运段', '重庆北', 3),
      depot('贵阳动车段', '贵阳北动车所', '贵阳客运段', '贵阳北', 2),
    ],
  },
  {
    name: '武汉局',
    code: 'N',
    fleetWeight: 7,
    north: false,
    depots: [
      depot('武汉动车段', '武汉动车所', '武汉客运段', '武汉', 3),
      depot('武汉动车段', '汉口动车所', '武汉客运段', '汉口', 2),
    ],
  },
  {
    name: '郑州局',
    code: 'F',
    fleetWeight: 6,
    north: true,
    depots: [depot('郑州动车段', '郑州东动车所', '郑州客运段', '郑州东', 1)],
  },
  {
    name: '济南局',
    code: 'K',
    fleetWeight: 7,
    north: true,
    depots: [
      depot('济南动车段', '济南西动车所', '济南客运段', '济南西', 2),
      depot('青岛动车段', '青岛动车所', '青岛客运段', '青岛北', 2),
    ],
  },
  {
    name: '西安局',
    code: 'Y',
    fleetWeight: 5,
    north: true,
    depots: [depot('西安动车段', '西安北动车所', '西安客运段', '西安北', 1)],
  },
  {
    name: '南昌局',
    code: 'G',
    fleetWeight: 7,
    north: false,
    depots: [
      depot('南昌动车段', '南昌西动车所', '南昌客运段', '南昌西', 2),
      depot('福州动车段', '福州南动车所', '福州客运段', '福州南', 2),
      depot('福州动车段', '厦门北动车所', '厦门客运段', '厦门北', 1),
    ],
  },
  {
    name: '沈阳局',
    code: 'T',
    fleetWeight: 5,
    north: true,
    depots: [
      depot('沈阳动车段', '沈阳北动车所', '沈阳客运段', '沈阳北', 2),
      depot('沈阳动车段', '大连动车所', '大连客运段', '大连北', 1),
    ],
  },
  {
    name: '哈尔滨局',
    code: 'B',
    fleetWeight: 3,
    north: true,
    depots: [depot('哈尔滨动车段', '哈尔滨西动车所', '哈尔滨客运段', '哈尔滨西', 1)],
  },
  {
    name: '南宁局',
    code: 'Z',
    fleetWeight: 3,
    north: false,
    depots: [depot('南宁动车段', '南宁东动车所', '南宁客运段', '南宁东', 1)],
  },
  {
    name: '昆明局',
    code: 'M',
    fleetWeight: 1.5,
    north: false,
    depots: [depot('昆明动车段', '昆明南动车所', '昆明客运段', '昆明南', 1)],
  },
  {
    name: '兰州局',
    code: 'J',
    fleetWeight: 1.5,
    north: true,
    depots: [depot('兰州动车段', '兰州西动车所', '兰州客运段', '兰州西', 1)],
  },
  {
    name: '太原局',
    code: 'V',
    fleetWeight: 1,
    north: true,
    depots: [depot('太原动车段', '太原南动车所', '太原客运段', '太原南', 1)],
  },
];
