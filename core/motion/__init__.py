"""The vocabulary every job shares: the clip and its rotations, forward kinematics, resampling, the character's frame
(:mod:`.root`), feet on the floor (:mod:`.contacts`, :mod:`.footlock`), the pose features clips are matched on, and a
clip played as a cycle. Never imports a job."""
