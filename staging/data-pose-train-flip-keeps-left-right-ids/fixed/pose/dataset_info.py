KEYPOINT_NAMES = [
    "nose", "left_eye", "right_eye", "left_ear", "right_ear",
    "left_shoulder", "right_shoulder", "left_elbow", "right_elbow",
    "left_wrist", "right_wrist", "left_hip", "right_hip",
    "left_knee", "right_knee", "left_ankle", "right_ankle",
]

FLIP_PAIRS = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14), (15, 16)]

NUM_JOINTS = len(KEYPOINT_NAMES)

JOINT_WEIGHTS = [1.0] * 5 + [1.2, 1.2, 1.5, 1.5, 1.5, 1.5] + [1.0, 1.0, 1.2, 1.2, 1.5, 1.5]
