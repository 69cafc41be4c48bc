KEYPOINT_NAMES = [
    "snout", "eye_midpoint", "dorsal_fin_base", "body_center",
    "adipose_fin", "caudal_peduncle", "tail_fork",
]

# Lateral-view fish: every landmark lies on the body midline, so a mirrored
# crop keeps the same landmark identities.
FLIP_PAIRS = []

NUM_JOINTS = len(KEYPOINT_NAMES)

JOINT_WEIGHTS = [1.2, 1.0, 1.0, 1.0, 1.2, 1.2, 1.5]
