"""Music: WAV audio (:mod:`.audio`), its onset-strength envelope (:mod:`.onset`), tempo (:mod:`.tempo`) and beats
(:mod:`.beats`)."""

from .audio import WavInfo, read_wav, wav_blocks, wav_info
from .beats import Beats, beats_from_envelope, f_measure, track_beats, track_wav
from .onset import Envelope, onset_strength
from .tempo import Tempo, estimate_tempo
