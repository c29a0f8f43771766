"""Hand-written vocabularies for the synthetic corpus: domains, topics and their terms.

Every topic owns its terms (concepts of the field), methods, data (datasets,
samples, cohorts, materials) and measures (metrics, quantities). Paper-specific
"key concepts" are modifier + term pairs, so each topic has a large space of
them while staying inside its own vocabulary. Nothing here is downloaded or
copied from a corpus; lists are ';'-separated only to keep the file short.
"""

from __future__ import annotations

from dataclasses import dataclass


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(";") if part.strip())


@dataclass(frozen=True)
class Topic:
    """One research topic: its domain, name, and the words its papers are written with."""

    name: str
    domain: str
    terms: tuple[str, ...]
    methods: tuple[str, ...]
    data: tuple[str, ...]
    measures: tuple[str, ...]
    also: tuple[str, ...] = ()  # secondary fields of study


@dataclass(frozen=True)
class Domain:
    """A field of study: general words and modifiers shared by its topics."""

    name: str
    general: tuple[str, ...]
    modifiers: tuple[str, ...]


def _topic(name: str, domain: str, terms: str, methods: str, data: str, measures: str, also: str = "") -> Topic:
    return Topic(name, domain, _split(terms), _split(methods), _split(data), _split(measures), _split(also))


DOMAINS: tuple[Domain, ...] = (
    Domain(
        "Computer Science",
        _split("learning algorithm; model capacity; training data; computational cost; generalization; scalability;"
               " benchmark suite; inference latency; representation; hardware accelerator; open-source implementation"),
        _split("self-supervised; lightweight; end-to-end; differentiable; memory-efficient; parallel;"
               " transformer-based; quantized; federated; causal; compositional; streaming"),
    ),
    Domain(
        "Biology",
        _split("gene function; cellular process; organism; evolutionary history; phenotype; molecular mechanism;"
               " physiological state; environmental cue; signaling pathway; fitness cost; tissue context"),
        _split("cell-type-specific; conserved; tissue-specific; evolutionary; context-dependent; developmental;"
               " species-level; in vivo; mutant; wild-type; seasonal; spatially resolved"),
    ),
    Domain(
        "Physics",
        _split("symmetry breaking; energy scale; ground state; order parameter; experimental resolution;"
               " theoretical prediction; scattering process; boundary condition; dimensional analysis;"
               " thermal fluctuation; measurement apparatus"),
        _split("nonequilibrium; relativistic; anisotropic; low-temperature; high-energy; topological; nonlinear;"
               " two-dimensional; driven; dissipative; coherent; long-range"),
    ),
    Domain(
        "Medicine",
        _split("clinical outcome; patient population; standard of care; adverse event; treatment response;"
               " diagnostic accuracy; risk factor; follow-up period; clinical practice; health care utilization;"
               " quality of life"),
        _split("early-onset; age-adjusted; high-risk; treatment-naive; refractory; sex-specific; real-world;"
               " community-based; multicenter; personalized; postoperative; pediatric"),
    ),
    Domain(
        "Chemistry",
        _split("reaction yield; molecular structure; synthetic route; spectroscopic signature; reaction condition;"
               " chemical stability; solvent effect; bonding pattern; thermodynamic driving force; kinetic control;"
               " functional group"),
        _split("ligand-assisted; solvent-free; bimetallic; photoactive; aqueous; chiral; green; room-temperature;"
               " redox-active; bio-derived; scalable; ligand-free"),
    ),
    Domain(
        "Mathematics",
        _split("main theorem; sharp bound; general setting; special case; technical lemma; explicit construction;"
               " necessary condition; sufficient condition; open problem; structural property; asymptotic regime"),
        _split("uniform; weighted; generalized; quantitative; sharp; non-commutative; discrete; infinite-dimensional;"
               " multivariate; local; effective; higher-order"),
    ),
    Domain(
        "Economics",
        _split("policy implication; welfare effect; market outcome; identification strategy; heterogeneous response;"
               " equilibrium effect; causal effect; economic incentive; counterfactual scenario;"
               " distributional consequence; empirical evidence"),
        _split("state-dependent; long-run; firm-level; regional; cross-country; household-level; intergenerational;"
               " asymmetric; endogenous; dynamic; sector-specific; county-level"),
    ),
    Domain(
        "Materials Science",
        _split("microstructure; processing route; material property; device performance; structural stability;"
               " synthesis condition; characterization; scalable fabrication; defect chemistry; phase composition;"
               " mechanical response"),
        _split("nanostructured; doped; amorphous; single-crystalline; hierarchical; textured; solution-processed;"
               " high-temperature; porous; strained; graded; self-healing"),
    ),
)

DOMAIN_NAMES: tuple[str, ...] = tuple(d.name for d in DOMAINS)

# Modifiers any topic may use for its key concepts (the domain adds its own).
MODIFIERS: tuple[str, ...] = _split(
    "adaptive; hierarchical; sparse; robust; multiscale; stochastic; coupled; heterogeneous; time-resolved;"
    " low-rank; regularized; conditional; data-driven; physics-informed; probabilistic; multimodal; localized;"
    " global; hybrid; reduced; dynamic; constrained; interpretable; scalable; efficient; unified; joint;"
    " cross-scale; multi-stage; iterative; self-consistent; spatiotemporal; modular; generative; selective;"
    " nonparametric; context-aware; uncertainty-aware; second-order; asymmetric; higher-order; minimal;"
    " long-horizon; fine-grained; coarse-grained; transferable; implicit; explicit; equivariant; cooperative"
)

# Syllables of invented method / model names (one per paper, used only in its body).
NAME_SYLLABLES: tuple[str, ...] = _split(
    "ka; ro; vel; tor; ix; an; mer; sol; dra; quin; zel; pax; lum; tri; vor; nex; sen; ta; bra; cor; fen; gal;"
    " hal; jun; lor; mo; nar; ost; pel; rix; sar; tem; ul; vin; wex; yar; zor; dex; fil; gor"
)

TOPICS: tuple[Topic, ...] = (
    # --- Computer Science -------------------------------------------------------------------------
    _topic(
        "Natural Language Processing", "Computer Science",
        "token embedding; attention head; language model; syntactic parse; named entity; discourse structure;"
        " word sense; coreference chain; subword vocabulary; sequence labeling; machine translation;"
        " text summarization; question answering; sentiment polarity; dependency tree; semantic role;"
        " morphological analyzer; decoder layer; context window; lexical ambiguity",
        "contrastive pretraining; beam search decoding; masked language modeling; knowledge distillation;"
        " conditional random field; byte-pair encoding; instruction tuning; curriculum learning;"
        " retrieval augmentation; adapter fine-tuning",
        "multilingual news corpus; annotated dialogue collection; parallel sentence corpus;"
        " biomedical abstract collection; reading comprehension benchmark; social media posts;"
        " legal contract corpus; low-resource language treebank",
        "BLEU score; exact match accuracy; token-level F1; perplexity; inter-annotator agreement;"
        " calibration error",
        "Linguistics",
    ),
    _topic(
        "Computer Vision", "Computer Science",
        "image segmentation; object detector; feature pyramid; convolutional backbone; optical flow;"
        " depth estimate; point cloud; bounding box; keypoint heatmap; pixel classifier; scene graph;"
        " visual tracker; stereo correspondence; image patch; receptive field; camera pose; saliency map;"
        " semantic mask; instance embedding; texture descriptor",
        "data augmentation; non-maximum suppression; transfer learning; self-supervised pretraining;"
        " multi-scale training; test-time adaptation; anchor-free regression; patch tokenization;"
        " feature distillation; structure from motion",
        "street scene dataset; aerial image collection; indoor RGB-D scans; medical slide images;"
        " video surveillance clips; synthetic rendering set; satellite tile archive; handheld photo collection",
        "mean average precision; intersection over union; top-1 accuracy; endpoint error; frames per second;"
        " boundary F-score",
    ),
    _topic(
        "Graph Learning", "Computer Science",
        "node embedding; message passing; graph convolution; adjacency matrix; link prediction;"
        " node classification; graph pooling; heterogeneous graph; knowledge graph; spectral filter;"
        " neighborhood sampler; graph transformer; subgraph pattern; edge feature; community structure;"
        " random walk; over-smoothing; graph isomorphism; temporal graph; attributed network",
        "spectral clustering; neighbor sampling; contrastive graph augmentation; label propagation;"
        " graph attention; negative sampling; mini-batch training; positional encoding;"
        " virtual node augmentation; graph rewiring",
        "citation network; protein interaction graph; social follower graph; molecular graph benchmark;"
        " e-commerce co-purchase graph; road network; academic collaboration graph; traffic sensor graph",
        "node classification accuracy; hits at k; area under the ROC curve; mean reciprocal rank;"
        " Dirichlet energy; training throughput",
        "Mathematics",
    ),
    _topic(
        "Reinforcement Learning", "Computer Science",
        "policy gradient; value function; reward shaping; exploration bonus; replay buffer;"
        " Markov decision process; actor network; critic network; temporal difference; discount factor;"
        " state representation; action space; model-based planning; offline dataset; intrinsic motivation;"
        " multi-agent coordination; sparse reward; trajectory return; world model; safety constraint",
        "proximal policy optimization; Q-learning; Monte Carlo tree search; entropy regularization;"
        " hindsight relabeling; imitation learning; trust region update; prioritized replay; behavior cloning;"
        " distributional critic",
        "continuous control suite; grid-world environment; robotic manipulation tasks; arcade game benchmark;"
        " autonomous driving simulator; recommendation logs; warehouse logistics simulator;"
        " procedurally generated levels",
        "average episodic return; sample efficiency; success rate; regret bound; constraint violation rate;"
        " wall-clock training time",
    ),
    _topic(
        "Distributed Systems", "Computer Science",
        "consensus protocol; replicated log; leader election; fault tolerance; network partition;"
        " distributed transaction; key-value store; load balancer; message queue; consistency model;"
        " vector clock; erasure coding; scheduling policy; container orchestration; tail latency;"
        " storage node; gossip protocol; remote procedure call; checkpoint recovery; data shard",
        "quorum replication; two-phase commit; speculative execution; consistent hashing; lease-based caching;"
        " log compaction; batch pipelining; adaptive load shedding; state machine replication;"
        " failure injection testing",
        "production trace; geo-distributed cluster; microservice benchmark; cloud storage workload;"
        " key-value workload mix; datacenter failure logs; serverless function trace; edge device testbed",
        "99th percentile latency; throughput in operations per second; recovery time; availability;"
        " replication overhead; energy per request",
    ),
    # --- Biology ----------------------------------------------------------------------------------
    _topic(
        "Genomics", "Biology",
        "gene expression; transcription factor; regulatory element; chromatin accessibility;"
        " single-cell transcriptome; genetic variant; splice isoform; enhancer region; copy number variation;"
        " methylation profile; reference genome; sequencing read; gene regulatory network; allele frequency;"
        " promoter motif; noncoding RNA; haplotype block; histone modification; genome assembly;"
        " expression quantitative trait locus",
        "RNA sequencing; genome-wide association analysis; CRISPR screening; read alignment; variant calling;"
        " differential expression analysis; chromatin immunoprecipitation; long-read sequencing;"
        " motif enrichment analysis; single-cell clustering",
        "tumor biopsy samples; cell line panel; population cohort genomes; mouse tissue atlas;"
        " plant accession panel; patient-derived organoids; embryonic stem cells; yeast deletion collection",
        "fold change; false discovery rate; read depth; heritability estimate; effect size; mapping rate",
    ),
    _topic(
        "Neuroscience", "Biology",
        "neuronal firing; synaptic plasticity; cortical circuit; dendritic spine; neural population code;"
        " hippocampal place cell; inhibitory interneuron; action potential; neurotransmitter release;"
        " oscillatory activity; sensory cortex; motor learning; working memory; functional connectivity;"
        " tuning curve; spike timing; glial cell; neural manifold; reward prediction error; axonal projection",
        "two-photon calcium imaging; patch-clamp recording; optogenetic stimulation;"
        " functional magnetic resonance imaging; electrophysiological recording; viral tracing;"
        " dimensionality reduction; population decoding analysis; pharmacological inactivation;"
        " behavioral conditioning",
        "head-fixed mice; non-human primate recordings; acute brain slices; human participants;"
        " zebrafish larvae; organotypic cultures; rodent behavioral cohort; intracranial recordings",
        "firing rate; signal-to-noise ratio; decoding accuracy; spike count correlation; response latency;"
        " blood-oxygen-level-dependent signal",
        "Medicine",
    ),
    _topic(
        "Ecology", "Biology",
        "species richness; population dynamics; trophic interaction; habitat fragmentation;"
        " community assembly; dispersal kernel; predator-prey cycle; functional diversity; carrying capacity;"
        " niche partitioning; ecosystem function; invasive species; climate niche; metapopulation;"
        " pollination network; biomass production; phenological shift; landscape connectivity;"
        " competitive exclusion; seed bank",
        "mark-recapture survey; species distribution modeling; camera trapping; environmental DNA sampling;"
        " transect sampling; structural equation modeling; occupancy modeling; remote sensing;"
        " stable isotope analysis; mesocosm experiment",
        "long-term monitoring plots; grassland field sites; coral reef transects; forest inventory plots;"
        " freshwater lakes; island bird populations; alpine meadows; agricultural landscapes",
        "Shannon diversity index; population growth rate; detection probability; net primary productivity;"
        " extinction risk; beta diversity",
        "Environmental Science",
    ),
    _topic(
        "Structural Biology", "Biology",
        "protein folding; binding pocket; conformational change; tertiary structure; active site;"
        " allosteric regulation; membrane protein; protein complex; secondary structure; ligand affinity;"
        " side chain packing; hydrogen bond network; disordered region; electron density map;"
        " domain interface; catalytic residue; ion channel; protein dynamics; structural motif;"
        " quaternary assembly",
        "cryo-electron microscopy; X-ray crystallography; molecular dynamics simulation;"
        " nuclear magnetic resonance spectroscopy; hydrogen-deuterium exchange; site-directed mutagenesis;"
        " cross-linking mass spectrometry; homology modeling; single-particle reconstruction;"
        " isothermal titration calorimetry",
        "purified recombinant proteins; membrane transporter constructs; enzyme variant library;"
        " antibody-antigen complexes; viral glycoproteins; bacterial ribosomes; kinase domain constructs;"
        " nanodisc preparations",
        "resolution in angstroms; root-mean-square deviation; dissociation constant; B-factor;"
        " thermal stability; catalytic efficiency",
        "Chemistry",
    ),
    _topic(
        "Microbiology", "Biology",
        "bacterial growth; biofilm formation; antibiotic resistance; quorum sensing; gut microbiome;"
        " host-pathogen interaction; virulence factor; horizontal gene transfer; microbial community;"
        " cell envelope; phage infection; metabolic pathway; persister cell; efflux pump; nutrient limitation;"
        " secretion system; plasmid transfer; spore germination; commensal bacteria; stress response",
        "16S rRNA sequencing; metagenomic sequencing; time-lapse microscopy; transposon mutagenesis;"
        " minimum inhibitory concentration assay; flow cytometry; gnotobiotic mouse model;"
        " comparative genomics; microfluidic cultivation; metabolomic profiling",
        "clinical isolates; soil samples; fecal samples; wastewater samples; laboratory reference strains;"
        " infected macrophages; marine sediment cores; hospital surface swabs",
        "growth rate; colony forming units; relative abundance; resistance prevalence; survival fraction;"
        " doubling time",
        "Medicine",
    ),
    # --- Physics ----------------------------------------------------------------------------------
    _topic(
        "Condensed Matter Physics", "Physics",
        "band structure; electron correlation; topological insulator; superconducting gap; spin texture;"
        " phonon dispersion; Fermi surface; quantum phase transition; magnetic order; charge density wave;"
        " edge state; Berry curvature; moire superlattice; Hubbard model; quasiparticle excitation;"
        " spin-orbit coupling; heavy fermion; lattice distortion; Dirac cone; frustrated magnet",
        "angle-resolved photoemission; density functional theory; neutron scattering;"
        " scanning tunneling microscopy; quantum Monte Carlo; transport measurement;"
        " dynamical mean-field theory; exact diagonalization; Raman spectroscopy; tensor network simulation",
        "single-crystal samples; twisted bilayer devices; thin-film heterostructures;"
        " layered van der Waals crystals; doped cuprate samples; kagome lattice compounds; exfoliated flakes;"
        " pressurized samples",
        "critical temperature; resistivity; magnetic susceptibility; Hall conductance; specific heat;"
        " gap magnitude",
        "Materials Science",
    ),
    _topic(
        "Quantum Information", "Physics",
        "qubit coherence; entangled state; quantum gate; error correction code; quantum circuit;"
        " measurement backaction; decoherence channel; variational ansatz; channel capacity; logical qubit;"
        " stabilizer code; quantum advantage; entanglement entropy; readout fidelity; Bell inequality;"
        " quantum annealer; noise model; teleportation protocol; quantum memory; photon source",
        "randomized benchmarking; quantum state tomography; dynamical decoupling;"
        " variational quantum eigensolver; surface code decoding; error mitigation; pulse shaping;"
        " quantum process tomography; matrix product state simulation; adiabatic state preparation",
        "superconducting transmon processor; trapped ion chain; photonic chip; neutral atom array;"
        " spin qubit device; nitrogen-vacancy centers; simulated noisy circuits; quantum dot array",
        "gate fidelity; coherence time; logical error rate; entanglement fidelity; circuit depth;"
        " quantum volume",
        "Computer Science",
    ),
    _topic(
        "Astrophysics", "Physics",
        "galaxy formation; dark matter halo; cosmic microwave background; stellar population;"
        " black hole accretion; gravitational lensing; supernova remnant; interstellar medium;"
        " star formation rate; exoplanet atmosphere; redshift distribution; baryon acoustic oscillation;"
        " active galactic nucleus; stellar wind; neutron star merger; galaxy cluster; dark energy;"
        " protoplanetary disk; radial velocity; cosmic ray",
        "N-body simulation; spectroscopic survey; photometric redshift estimation;"
        " Markov chain Monte Carlo inference; radiative transfer modeling; transit photometry;"
        " weak lensing analysis; hydrodynamic simulation; interferometric imaging;"
        " gravitational wave parameter estimation",
        "wide-field imaging survey; deep field observations; radio interferometer data;"
        " X-ray satellite observations; transit light curves; simulated galaxy catalogs;"
        " spectroscopic redshift catalog; gravitational wave events",
        "Hubble constant; mass-to-light ratio; detection significance; luminosity function; metallicity;"
        " orbital period",
    ),
    _topic(
        "Particle Physics", "Physics",
        "Higgs boson; jet substructure; parton distribution; gauge symmetry; neutrino oscillation;"
        " dark matter candidate; collider event; hadronic decay; top quark; flavor anomaly;"
        " effective field theory; lattice QCD; production cross section; detector calorimeter;"
        " missing transverse energy; lepton universality; new physics scenario; trigger system;"
        " vertex reconstruction; renormalization group",
        "Monte Carlo event generation; likelihood fit; jet clustering; unfolding procedure;"
        " perturbative calculation; boosted decision tree; track reconstruction; background estimation;"
        " lattice simulation; profile likelihood ratio test",
        "proton-proton collisions; heavy-ion collisions; cosmic muon data; simulated detector events;"
        " neutrino beam data; electron-positron collisions; underground detector exposure;"
        " test-beam measurements",
        "integrated luminosity; statistical significance; branching fraction; energy resolution;"
        " systematic uncertainty; signal efficiency",
    ),
    _topic(
        "Fluid Dynamics", "Physics",
        "turbulent boundary layer; vortex shedding; Reynolds stress; flow separation; energy cascade;"
        " wall shear stress; Navier-Stokes equations; free surface; multiphase flow; convective instability;"
        " wake dynamics; drag reduction; mixing layer; Kolmogorov scale; coherent structure; heat transfer;"
        " compressible flow; shock wave; rotating flow; droplet breakup",
        "direct numerical simulation; large eddy simulation; particle image velocimetry;"
        " lattice Boltzmann method; proper orthogonal decomposition; linear stability analysis;"
        " hot-wire anemometry; volume of fluid method; spectral element method; reduced-order modeling",
        "wind tunnel measurements; channel flow simulations; water tank experiments; pipe flow facility;"
        " open-channel flume; atmospheric boundary layer data; microfluidic channels; jet flow experiments",
        "Reynolds number; drag coefficient; Nusselt number; friction velocity; Strouhal number;"
        " turbulence intensity",
        "Engineering",
    ),
    # --- Medicine ---------------------------------------------------------------------------------
    _topic(
        "Oncology", "Medicine",
        "tumor microenvironment; immune checkpoint; metastatic progression; targeted therapy;"
        " chemotherapy resistance; tumor mutational burden; circulating tumor DNA; adjuvant therapy;"
        " radiotherapy response; oncogenic driver; tumor heterogeneity; progression-free survival;"
        " T-cell infiltration; minimal residual disease; angiogenesis; neoadjuvant treatment;"
        " biomarker panel; cancer stem cell; epithelial-mesenchymal transition; tumor staging",
        "randomized controlled trial; immunohistochemistry; liquid biopsy;"
        " Cox proportional hazards regression; next-generation sequencing; propensity score matching;"
        " Kaplan-Meier analysis; multiplex immunofluorescence; dose escalation design; digital pathology",
        "breast cancer cohort; lung adenocarcinoma patients; colorectal cancer registry;"
        " melanoma trial participants; pediatric leukemia cohort; pancreatic cancer specimens;"
        " prostate cancer biopsies; ovarian cancer cohort",
        "overall survival; hazard ratio; objective response rate; median follow-up; toxicity grade;"
        " confidence interval",
        "Biology",
    ),
    _topic(
        "Cardiology", "Medicine",
        "heart failure; atrial fibrillation; coronary artery disease; left ventricular function;"
        " myocardial infarction; blood pressure; arterial stiffness; cardiac remodeling; lipid profile;"
        " ejection fraction; arrhythmia burden; valve disease; endothelial dysfunction; cardiometabolic risk;"
        " stroke prevention; anticoagulation therapy; cardiac biomarker; exercise capacity;"
        " vascular inflammation; sudden cardiac death",
        "echocardiography; cardiac magnetic resonance imaging; percutaneous coronary intervention;"
        " ambulatory ECG monitoring; catheter ablation; multivariable logistic regression;"
        " cardiopulmonary exercise testing; coronary angiography; mendelian randomization;"
        " risk prediction modeling",
        "hospitalized heart failure patients; population-based cohort; post-infarction patients;"
        " hypertensive adults; registry of ablation procedures; elderly community residents; athletes;"
        " patients with implanted devices",
        "hazard ratio; left ventricular ejection fraction; major adverse cardiac events; all-cause mortality;"
        " systolic blood pressure; hospitalization rate",
    ),
    _topic(
        "Infectious Disease Epidemiology", "Medicine",
        "transmission dynamics; reproduction number; vaccine effectiveness; incubation period;"
        " contact network; seroprevalence; outbreak detection; herd immunity; case fatality; viral shedding;"
        " antimicrobial stewardship; vector-borne disease; surveillance system; household transmission;"
        " nonpharmaceutical intervention; waning immunity; variant emergence; attack rate;"
        " zoonotic spillover; age-structured mixing",
        "compartmental modeling; test-negative design; genomic surveillance; Bayesian hierarchical modeling;"
        " contact tracing; prospective cohort study; time-series regression; agent-based simulation;"
        " case-control study; phylodynamic analysis",
        "national surveillance records; household contact cohort; hospital admission data;"
        " serological survey; mobility data; vaccination registry; wastewater monitoring data;"
        " school outbreak reports",
        "basic reproduction number; odds ratio; incidence rate; serial interval; relative risk;"
        " infection fatality ratio",
        "Biology",
    ),
    _topic(
        "Medical Imaging", "Medicine",
        "lesion segmentation; computed tomography; magnetic resonance image; radiomic feature;"
        " image reconstruction; contrast enhancement; diffusion-weighted imaging; ultrasound probe;"
        " dose reduction; motion artifact; anatomical landmark; whole-slide image; image registration;"
        " tumor delineation; perfusion map; low-dose scan; k-space sampling; positron emission tomography;"
        " organ-at-risk contour; screening mammography",
        "deep convolutional segmentation; compressed sensing reconstruction; deformable registration;"
        " radiomics feature selection; multi-reader study; federated training; uncertainty estimation;"
        " iterative reconstruction; texture analysis; semi-supervised annotation",
        "multi-center chest CT scans; brain MRI cohort; screening mammograms; cardiac ultrasound videos;"
        " prostate MRI studies; annotated histopathology slides; pediatric radiographs; PET-CT examinations",
        "Dice coefficient; area under the curve; sensitivity; specificity; Hausdorff distance;"
        " peak signal-to-noise ratio",
        "Computer Science",
    ),
    _topic(
        "Neurology", "Medicine",
        "neurodegenerative disease; cognitive decline; amyloid deposition; motor symptom; seizure frequency;"
        " white matter lesion; multiple sclerosis relapse; stroke recovery; cerebrospinal fluid biomarker;"
        " neuroinflammation; gait impairment; sleep disturbance; disease-modifying therapy; tau pathology;"
        " cerebral small vessel disease; migraine attack; peripheral neuropathy; functional outcome;"
        " brain atrophy; deep brain stimulation",
        "longitudinal cohort study; neuropsychological assessment; diffusion tensor imaging;"
        " electroencephalography; mixed-effects modeling; placebo-controlled trial; amyloid PET imaging;"
        " plasma biomarker assay; wearable sensor monitoring; survival analysis",
        "memory clinic patients; Parkinson's disease cohort; stroke registry; epilepsy surgery candidates;"
        " multiple sclerosis cohort; community-dwelling older adults; migraine patients;"
        " ALS clinical trial participants",
        "cognitive score; annualized relapse rate; modified Rankin scale; seizure freedom rate;"
        " time to progression; area under the curve",
        "Biology",
    ),
    # --- Chemistry --------------------------------------------------------------------------------
    _topic(
        "Catalysis", "Chemistry",
        "active site; heterogeneous catalyst; turnover frequency; metal nanoparticle; support interaction;"
        " reaction intermediate; selectivity control; C-H activation; single-atom catalyst; oxygen evolution;"
        " hydrogenation reaction; ligand design; transition state; catalyst deactivation; surface adsorption;"
        " photocatalytic water splitting; zeolite framework; CO2 reduction; enantioselective transformation;"
        " reaction mechanism",
        "in situ infrared spectroscopy; X-ray absorption spectroscopy; density functional theory calculation;"
        " kinetic isotope effect measurement; temperature-programmed desorption; high-throughput screening;"
        " microkinetic modeling; operando characterization; wet impregnation; transmission electron microscopy",
        "supported platinum catalysts; copper-zinc oxide catalysts; metal-organic frameworks; zeolite samples;"
        " palladium complexes; cobalt oxide nanosheets; ruthenium pincer complexes; iron porphyrin catalysts",
        "turnover number; Faradaic efficiency; conversion; enantiomeric excess; activation energy;"
        " overpotential",
        "Materials Science",
    ),
    _topic(
        "Organic Synthesis", "Chemistry",
        "total synthesis; cross-coupling reaction; protecting group; stereocenter; cyclization step;"
        " natural product; asymmetric induction; reaction scope; chiral auxiliary;"
        " functional group tolerance; ring-closing metathesis; photoredox catalysis;"
        " late-stage functionalization; radical intermediate; regioselectivity; organocatalyst;"
        " cascade reaction; building block; flow chemistry; heterocycle formation",
        "palladium-catalyzed coupling; column chromatography; nuclear magnetic resonance characterization;"
        " retrosynthetic analysis; high-resolution mass spectrometry; single-crystal diffraction;"
        " continuous flow synthesis; kinetic resolution; electrochemical oxidation; reaction optimization screen",
        "aryl halide substrates; alkaloid targets; terpene scaffolds; drug-like fragments;"
        " amino acid derivatives; boronic acid partners; macrocyclic precursors; commercial starting materials",
        "isolated yield; diastereomeric ratio; enantiomeric excess; step count; reaction time; atom economy",
    ),
    _topic(
        "Electrochemistry", "Chemistry",
        "electrode interface; solid electrolyte interphase; redox couple; charge transfer;"
        " double layer capacitance; ion transport; electrocatalytic activity; corrosion resistance;"
        " faradaic process; current collector; overpotential loss; electrolyte decomposition;"
        " proton-coupled electron transfer; pseudocapacitance; dendrite growth; redox flow cell;"
        " electrodeposition; impedance response; oxygen reduction; ionic liquid",
        "cyclic voltammetry; electrochemical impedance spectroscopy; galvanostatic cycling;"
        " rotating disk electrode measurement; in situ X-ray diffraction; chronoamperometry;"
        " differential electrochemical mass spectrometry; finite element modeling;"
        " scanning electrochemical microscopy; operando Raman spectroscopy",
        "lithium metal anodes; nickel-rich cathodes; platinum electrodes; aqueous electrolytes;"
        " carbon felt electrodes; solid polymer electrolytes; zinc anodes; vanadium electrolytes",
        "capacity retention; Coulombic efficiency; exchange current density; charge transfer resistance;"
        " energy density; Tafel slope",
        "Materials Science",
    ),
    _topic(
        "Computational Chemistry", "Chemistry",
        "potential energy surface; electronic structure; basis set; exchange-correlation functional;"
        " reaction barrier; solvation model; excited state; molecular orbital; conformational search;"
        " free energy profile; force field; dispersion correction; coupled cluster; charge distribution;"
        " vibrational frequency; machine-learned potential; transition state search;"
        " intermolecular interaction; spin state; thermochemistry",
        "hybrid density functional theory; ab initio molecular dynamics; coupled cluster calculation;"
        " free energy perturbation; quantum mechanics/molecular mechanics; neural network potential training;"
        " metadynamics; configuration interaction; semi-empirical screening; umbrella sampling",
        "benchmark reaction set; organic molecule library; transition metal complexes; drug-like conformers;"
        " water clusters; enzyme active-site models; crystal structure database; small-molecule datasets",
        "mean absolute error; activation barrier; binding energy; computational cost;"
        " root-mean-square deviation; correlation coefficient",
        "Physics",
    ),
    _topic(
        "Polymer Chemistry", "Chemistry",
        "polymer chain; molecular weight distribution; block copolymer; cross-link density;"
        " glass transition; living polymerization; chain-end functionality; self-assembly; hydrogel network;"
        " monomer conversion; tacticity control; polymer brush; degradable polymer;"
        " ring-opening polymerization; supramolecular interaction; conjugated polymer; viscoelastic response;"
        " microphase separation; chain transfer agent; dynamic covalent bond",
        "controlled radical polymerization; gel permeation chromatography; differential scanning calorimetry;"
        " small-angle X-ray scattering; rheological measurement; click chemistry; dynamic light scattering;"
        " atomic force microscopy; step-growth polymerization; coarse-grained simulation",
        "polystyrene samples; polylactide films; acrylate monomers; hydrogel specimens; bio-based monomers;"
        " recycled plastic waste; block copolymer thin films; elastomer networks",
        "dispersity; number-average molecular weight; glass transition temperature; tensile strength;"
        " storage modulus; swelling ratio",
        "Materials Science",
    ),
    # --- Mathematics ------------------------------------------------------------------------------
    _topic(
        "Combinatorics", "Mathematics",
        "chromatic number; extremal graph; Ramsey number; random graph; spanning tree; graph minor;"
        " perfect matching; Hamiltonian cycle; hypergraph; independent set; degree sequence; expander graph;"
        " planar graph; Turan density; combinatorial design; additive structure; graph homomorphism;"
        " treewidth; edge coloring; Latin square",
        "probabilistic method; regularity lemma; polynomial method; container method; discharging argument;"
        " spectral technique; entropy compression; flag algebra computation; inductive construction;"
        " absorbing method",
        "dense graphs; sparse random graphs; bipartite graphs; regular hypergraphs; Cayley graphs;"
        " finite projective planes; integer sequences; small graph catalog",
        "upper bound; lower bound; threshold probability; asymptotic density; exponent; approximation ratio",
        "Computer Science",
    ),
    _topic(
        "Optimization", "Mathematics",
        "convex relaxation; gradient method; saddle point; duality gap; constraint qualification;"
        " proximal operator; stochastic gradient; semidefinite program; nonsmooth objective;"
        " Lipschitz constant; convergence rate; line search; integer program; feasible region;"
        " Lagrangian multiplier; variance reduction; mirror descent; trust region; first-order oracle;"
        " submodular function",
        "accelerated gradient descent; interior point method; alternating direction method of multipliers;"
        " branch and bound; stochastic variance-reduced gradient; Frank-Wolfe algorithm;"
        " sequential quadratic programming; cutting plane method; primal-dual splitting; coordinate descent",
        "large-scale logistic regression instances; portfolio selection problems; scheduling benchmark instances;"
        " sparse regression problems; network flow instances; quadratic assignment library;"
        " matrix completion tasks; power system dispatch instances",
        "iteration complexity; optimality gap; objective value; runtime; constraint violation;"
        " oracle calls",
        "Computer Science",
    ),
    _topic(
        "Probability Theory", "Mathematics",
        "Brownian motion; Markov chain; martingale inequality; mixing time; large deviation; random walk;"
        " stochastic differential equation; branching process; point process; stationary distribution;"
        " ergodic theorem; concentration inequality; percolation threshold; random matrix; heavy tail;"
        " Levy process; interacting particle system; coupling argument; scaling limit; hitting time",
        "coupling construction; martingale method; spectral gap estimate; Stein's method;"
        " renormalization argument; moment method; Ito calculus; stochastic comparison;"
        " Lyapunov function technique; Malliavin calculus",
        "lattice models; random regular graphs; exclusion processes; Gaussian ensembles; Galton-Watson trees;"
        " Poisson point fields; queueing networks; contact processes",
        "mixing time bound; tail exponent; critical probability; variance bound; total variation distance;"
        " rate function",
    ),
    _topic(
        "Numerical Analysis", "Mathematics",
        "finite element method; discretization error; spectral method; stiff system; a posteriori estimate;"
        " mesh refinement; time integrator; preconditioner; boundary layer resolution; conservation law;"
        " multigrid solver; stability condition; Krylov subspace; weak formulation; interpolation operator;"
        " quadrature rule; domain decomposition; reduced basis; shock capturing; elliptic operator",
        "adaptive mesh refinement; discontinuous Galerkin discretization; implicit-explicit time stepping;"
        " algebraic multigrid; conjugate gradient iteration; finite volume scheme; spectral collocation;"
        " low-rank tensor approximation; isogeometric analysis; Runge-Kutta integration",
        "Poisson problems; advection-diffusion test cases; elasticity benchmarks; Navier-Stokes test problems;"
        " wave propagation examples; heat equation cases; Helmholtz problems; unstructured mesh benchmarks",
        "convergence order; L2 error; condition number; iteration count; computational time;"
        " energy norm error",
        "Computer Science",
    ),
    _topic(
        "Number Theory", "Mathematics",
        "prime distribution; modular form; elliptic curve; L-function; Diophantine equation; class group;"
        " Galois representation; exponential sum; sieve bound; rational point; algebraic integer;"
        " zeta function zero; arithmetic progression; p-adic valuation; quadratic form;"
        " automorphic representation; Selmer group; height function; character sum; congruence subgroup",
        "circle method; large sieve; descent argument; spectral decomposition; analytic continuation;"
        " Hecke operator computation; trace formula; moment computation; height machinery; Iwasawa theory",
        "elliptic curves over number fields; imaginary quadratic fields; cusp forms of weight two;"
        " Dirichlet characters; cyclotomic fields; hyperelliptic curves; integer partitions; prime tuples",
        "error term; asymptotic formula; natural density; explicit bound; analytic rank; exponent saving",
    ),
    # --- Economics --------------------------------------------------------------------------------
    _topic(
        "Labor Economics", "Economics",
        "minimum wage; labor supply; wage inequality; human capital; job search; unemployment insurance;"
        " occupational mobility; gender pay gap; skill premium; labor market tightness; worker displacement;"
        " collective bargaining; returns to education; remote work; monopsony power; informal employment;"
        " job training program; immigration shock; automation exposure; hours worked",
        "difference-in-differences; instrumental variable estimation; regression discontinuity design;"
        " structural search model; event study; synthetic control method; matched employer-employee analysis;"
        " quantile regression; randomized field experiment; shift-share design",
        "administrative payroll records; household labor force survey; matched employer-employee data;"
        " longitudinal worker panel; online job postings; census microdata; unemployment insurance claims;"
        " teacher personnel files",
        "labor supply elasticity; wage growth; employment rate; standard error; treatment effect;"
        " labor force participation",
    ),
    _topic(
        "Macroeconomics", "Economics",
        "interest rate rule; inflation expectation; monetary transmission; output gap;"
        " central bank communication; business cycle; fiscal multiplier; price rigidity; forward guidance;"
        " exchange rate pass-through; zero lower bound; credit supply; quantitative easing;"
        " household consumption; productivity shock; term premium; sovereign debt; aggregate demand;"
        " Phillips curve; financial friction",
        "vector autoregression; dynamic stochastic general equilibrium model; local projection;"
        " Bayesian estimation; high-frequency identification; narrative identification;"
        " heterogeneous agent model; sign restriction; Kalman filtering; counterfactual simulation",
        "quarterly national accounts; survey of professional forecasters; central bank announcements;"
        " euro area panel; household expectation survey; bank lending survey; cross-country macro panel;"
        " monthly price indices",
        "impulse response; inflation rate; output growth; forecast error; policy rate; variance decomposition",
    ),
    _topic(
        "Financial Economics", "Economics",
        "asset pricing; risk premium; market liquidity; volatility clustering; portfolio choice;"
        " stock return predictability; credit spread; limit order book; investor sentiment; systemic risk;"
        " corporate bond market; factor model; price discovery; leverage cycle; market microstructure;"
        " option pricing; fund flows; bank run; information asymmetry; high-frequency trading",
        "Fama-MacBeth regression; GARCH estimation; earnings announcement event study; panel regression;"
        " generalized method of moments; machine learning return forecasts; structural credit model;"
        " bootstrap inference; cross-sectional sorting; realized volatility estimation",
        "daily stock returns; corporate bond transactions; mutual fund holdings; intraday order book data;"
        " options price panel; cryptocurrency exchange data; bank balance sheets; analyst forecast data",
        "Sharpe ratio; abnormal return; alpha; bid-ask spread; volatility; t-statistic",
    ),
    _topic(
        "Development Economics", "Economics",
        "poverty trap; microfinance access; cash transfer; agricultural productivity; school enrollment;"
        " child health; financial inclusion; land tenure; rural electrification; informal insurance;"
        " migration remittance; conditional transfer program; consumption smoothing; female empowerment;"
        " market access; state capacity; infrastructure investment; mobile money; public service delivery;"
        " nutrition outcome",
        "cluster-randomized trial; staggered difference-in-differences; spatial regression discontinuity;"
        " general equilibrium analysis; two-stage least squares; cost-benefit analysis; panel fixed effects;"
        " structural household model; heterogeneous treatment effect estimation; satellite-based measurement",
        "household panel survey; village census; administrative school records; mobile phone transaction data;"
        " satellite night lights; demographic and health survey; farm plot measurements;"
        " program implementation records",
        "intent-to-treat effect; consumption growth; enrollment rate; cost-effectiveness; poverty headcount;"
        " standard deviation",
    ),
    _topic(
        "Industrial Organization", "Economics",
        "market power; entry barrier; vertical integration; price discrimination; merger review;"
        " platform competition; network effect; consumer search; product differentiation; collusive behavior;"
        " switching cost; regulatory oversight; capacity investment; demand estimation; two-sided market;"
        " innovation incentive; retail pricing; patent protection; auction design; firm productivity",
        "structural demand estimation; merger simulation; discrete choice model; dynamic oligopoly model;"
        " reduced-form event study; nested logit estimation; auction model estimation;"
        " production function estimation; counterfactual policy simulation; conduct parameter test",
        "scanner price data; airline route data; hospital merger data; app store data;"
        " procurement auction records; electricity market bids; retail store panel; patent filings",
        "markup; price elasticity; consumer surplus; Herfindahl index; market share; welfare loss",
    ),
    # --- Materials Science ------------------------------------------------------------------------
    _topic(
        "Battery Materials", "Materials Science",
        "cathode material; anode expansion; solid-state electrolyte; lithium diffusion; cycling stability;"
        " capacity fade; interfacial resistance; layered oxide; silicon anode; sodium-ion battery;"
        " electrolyte additive; thermal runaway; particle cracking; ionic conductivity;"
        " phase transformation; voltage hysteresis; binder chemistry; fast charging; lithium plating;"
        " transition metal dissolution",
        "long-term galvanostatic cycling; Rietveld refinement; impedance analysis;"
        " cryogenic electron microscopy; sol-gel synthesis; solid-state reaction synthesis;"
        " first-principles calculation; in situ X-ray tomography; atomic layer deposition coating;"
        " accelerating rate calorimetry",
        "coin cells; pouch cells; nickel-rich cathode powders; silicon-graphite composites;"
        " sulfide electrolyte pellets; garnet electrolyte samples; hard carbon anodes; commercial cells",
        "specific capacity; capacity retention; rate capability; first-cycle efficiency; ionic conductivity;"
        " gravimetric energy density",
        "Chemistry",
    ),
    _topic(
        "Two-Dimensional Materials", "Materials Science",
        "graphene layer; transition metal dichalcogenide; van der Waals heterostructure; exciton binding;"
        " interlayer coupling; grain boundary; defect density; carrier mobility; strain engineering;"
        " monolayer growth; monolayer flake; band gap tuning; edge termination; moire pattern;"
        " contact resistance; hexagonal boron nitride; valley polarization; phonon scattering;"
        " surface functionalization; layer stacking",
        "chemical vapor deposition; mechanical exfoliation; confocal Raman mapping; photoluminescence mapping;"
        " atomic force microscopy; field-effect transistor fabrication;"
        " scanning transmission electron microscopy; first-principles band calculation;"
        " liquid-phase exfoliation; transfer printing",
        "monolayer MoS2 flakes; graphene on copper foil; WSe2 devices; hBN-encapsulated samples; MXene films;"
        " black phosphorus flakes; wafer-scale films; twisted bilayer samples",
        "field-effect mobility; on/off ratio; photoluminescence yield; sheet resistance; optical band gap;"
        " defect density",
        "Physics",
    ),
    _topic(
        "Metallic Alloys", "Materials Science",
        "grain refinement; precipitation hardening; dislocation density; phase stability; high-entropy alloy;"
        " creep resistance; fatigue crack growth; twinning deformation; solid solution strengthening;"
        " corrosion behavior; texture evolution; recrystallization; additive manufacturing defect;"
        " martensitic transformation; hydrogen embrittlement; grain boundary segregation; work hardening;"
        " oxidation resistance; microstructure control; ductility",
        "electron backscatter diffraction; tensile testing; selective laser melting; CALPHAD modeling;"
        " atom probe tomography; nanoindentation; solution heat treatment; crystal plasticity simulation;"
        " in situ synchrotron diffraction; fatigue testing",
        "nickel-based superalloy specimens; titanium alloy parts; aluminum alloy sheets; stainless steel welds;"
        " CoCrFeNi alloy samples; magnesium alloy castings; additively manufactured coupons; tungsten alloys",
        "yield strength; elongation to failure; Vickers hardness; fatigue life; grain size; creep rate",
        "Engineering",
    ),
    _topic(
        "Semiconductor Thin Films", "Materials Science",
        "thin film growth; epitaxial layer; doping profile; interface trap; charge carrier lifetime;"
        " band alignment; surface roughness; defect passivation; gate dielectric; ohmic contact;"
        " strain relaxation; wide band gap semiconductor; quantum well; deposition rate; film stress;"
        " crystallinity; dopant activation; leakage current; point defect; optical absorption",
        "molecular beam epitaxy; pulsed laser deposition; sputter deposition; X-ray photoelectron spectroscopy;"
        " Hall effect measurement; deep-level transient spectroscopy; time-resolved photoluminescence;"
        " capacitance-voltage profiling; spectroscopic ellipsometry; rapid thermal annealing",
        "gallium nitride epilayers; silicon carbide wafers; oxide thin films; sputtered nitride films;"
        " gallium oxide substrates; amorphous silicon layers; zinc oxide nanowires; III-V heterostructures",
        "Hall mobility; breakdown voltage; minority carrier lifetime; interface state density;"
        " RMS roughness; optical band gap",
        "Physics",
    ),
    _topic(
        "Perovskite Photovoltaics", "Materials Science",
        "perovskite absorber; charge transport layer; ion migration; grain boundary passivation;"
        " halide segregation; moisture stability; open-circuit voltage loss; hole transport material;"
        " tandem architecture; crystallization kinetics; defect tolerance; nonradiative recombination;"
        " encapsulation strategy; lead toxicity; bandgap engineering; interface energetics;"
        " hysteresis behavior; film morphology; additive engineering; operational stability",
        "antisolvent spin coating; vapor-assisted deposition; grazing-incidence wide-angle X-ray scattering;"
        " transient photovoltage measurement; intensity-modulated spectroscopy;"
        " photoluminescence quantum yield measurement; accelerated aging test; drift-diffusion simulation;"
        " blade coating; Kelvin probe force microscopy",
        "methylammonium lead iodide films; formamidinium-cesium perovskites; inverted device stacks;"
        " perovskite-silicon tandems; large-area modules; tin-based perovskites; quasi-2D perovskite films;"
        " flexible substrates",
        "power conversion efficiency; open-circuit voltage; fill factor; short-circuit current density;"
        " T80 lifetime; trap density",
        "Energy",
    ),
)

DOMAIN_INDEX: dict[str, int] = {name: i for i, name in enumerate(DOMAIN_NAMES)}
TOPIC_DOMAIN: tuple[int, ...] = tuple(DOMAIN_INDEX[t.domain] for t in TOPICS)


def check_vocabulary() -> None:
    """Fail loudly if a hand edit broke the vocabulary's shape (used by the tests)."""
    problems = []
    for i, topic in enumerate(TOPICS):
        if topic.domain not in DOMAIN_INDEX:
            problems.append(f"TOPICS[{i}] {topic.name!r}: unknown domain {topic.domain!r}")
        for kind, minimum in (("terms", 15), ("methods", 8), ("data", 6), ("measures", 5)):
            items = getattr(topic, kind)
            if len(items) < minimum:
                problems.append(f"TOPICS[{i}] {topic.name!r}: {len(items)} {kind}, need >= {minimum}")
            if len(set(items)) != len(items):
                problems.append(f"TOPICS[{i}] {topic.name!r}: duplicate {kind}")
    if problems:
        raise ValueError(f"{len(problems)} vocabulary problem(s): " + "; ".join(problems))
